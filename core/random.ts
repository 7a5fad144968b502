// The one seeded PRNG (mulberry32): bootstraps, fuzzing and the transcript
// generator all need streams that replay exactly from a seed.

export type Random = () => number;

/** mulberry32: small, fast, 32-bit; the same seed gives the same stream everywhere. Never for secrets. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
