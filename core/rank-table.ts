// o200k_base's ranks read from dist/o200k-ranks.bin (written at build time by
// scripts/build-token-table.mjs from tiktoken's own rank file), and tiktoken's
// byte-pair merge over them, to count a piece of text without building
// tiktoken's WASM tables: those take about a third of a second of CPU and
// tens of MB on every start, a large share of a short run. The table is one
// file read into one buffer. When it is missing, damaged or was built from
// another tiktoken version than the one installed, `loadRankTable` returns
// undefined and the counter asks tiktoken itself.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packagePath } from './package-root.js';

export interface RankTable {
  mask: number;
  /** Token index per slot, -1 for an empty slot. */
  slots: Int32Array;
  /** Start of each token's bytes in `bytes`; n + 1 entries. */
  offsets: Uint32Array;
  ranks: Uint32Array;
  bytes: Uint8Array;
}

export const RANK_TABLE_FILE = 'dist/o200k-ranks.bin';
const MAGIC = 'o2kR';
const FORMAT = 1;

function installedTiktoken(): string | undefined {
  try {
    const main = createRequire(import.meta.url).resolve('tiktoken');
    return (JSON.parse(readFileSync(join(dirname(main), 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** The table in `file` (the built one by default), or undefined when it cannot be trusted. */
export function loadRankTable(file = packagePath(RANK_TABLE_FILE)): RankTable | undefined {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  if (data.length < 24 || data.toString('latin1', 0, 4) !== MAGIC || data.readUInt32LE(4) !== FORMAT) return undefined;
  const [n, slotCount, byteCount, versionLength] = [8, 12, 16, 20].map((at) => data.readUInt32LE(at));
  const head = 24 + Math.ceil(versionLength / 4) * 4;
  const size = head + 4 * slotCount + 4 * (n + 1) + 4 * n + byteCount;
  if (data.length !== size || data.toString('utf8', 24, 24 + versionLength) !== installedTiktoken()) return undefined;
  // A fresh, aligned buffer: typed-array views need 4-byte alignment, which a pooled Buffer need not have.
  const buffer = new Uint8Array(size);
  buffer.set(data);
  const at = (offset: number) => buffer.byteOffset + offset;
  return {
    mask: slotCount - 1,
    slots: new Int32Array(buffer.buffer, at(head), slotCount),
    offsets: new Uint32Array(buffer.buffer, at(head + 4 * slotCount), n + 1),
    ranks: new Uint32Array(buffer.buffer, at(head + 4 * slotCount + 4 * (n + 1)), n),
    bytes: new Uint8Array(buffer.buffer, at(head + 4 * slotCount + 8 * n + 4), byteCount),
  };
}

/** The rank of `bytes[from, to)` as one token, or -1 (FNV-1a hash, linear probing, as the file was built). */
function rankOf(t: RankTable, bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  const length = to - from;
  for (let slot = (hash >>> 0) & t.mask; ; slot = (slot + 1) & t.mask) {
    const k = t.slots[slot];
    if (k === -1) return -1;
    const start = t.offsets[k];
    if (t.offsets[k + 1] - start !== length) continue;
    let same = true;
    for (let i = 0; i < length && same; i++) same = t.bytes[start + i] === bytes[from + i];
    if (same) return t.ranks[k];
  }
}

const utf8 = new TextEncoder();

/**
 * Tokens tiktoken's byte-pair merge makes of one piece of the pre-tokenising
 * pattern: a piece that is a token is one; otherwise, starting from single
 * bytes, the adjacent pair whose joined bytes have the lowest rank merges
 * first (the leftmost on a tie), until no adjacent pair is a token. As in
 * tiktoken, each pair's rank is kept and only the two pairs beside a merge
 * are looked up again, so a piece of n bytes costs O(n²) at worst.
 */
export function countPiece(t: RankTable, piece: string): number {
  const bytes = utf8.encode(piece);
  if (rankOf(t, bytes, 0, bytes.length) >= 0) return 1;
  // Part i is bytes[starts[i], starts[i + 1]); ranks[i] is the rank of parts i and i + 1 joined (-1: not a token).
  const starts: number[] = [];
  for (let i = 0; i <= bytes.length; i++) starts.push(i);
  const pairRank = (i: number) => (i + 2 < starts.length ? rankOf(t, bytes, starts[i], starts[i + 2]) : -1);
  const ranks = starts.map((_, i) => pairRank(i));
  for (;;) {
    let at = -1;
    for (let i = 0; i < ranks.length; i++) if (ranks[i] >= 0 && (at < 0 || ranks[i] < ranks[at])) at = i;
    if (at < 0) break;
    starts.splice(at + 1, 1);
    ranks.splice(at + 1, 1);
    ranks[at] = pairRank(at);
    if (at > 0) ranks[at - 1] = pairRank(at - 1);
  }
  return starts.length - 1;
}
