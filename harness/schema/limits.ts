// Bounds on input that no real suite comes near (docs/config-format.md, "limits:").
// Past them a file or a setting is a mistake or an attack, and it is refused
// with its place before a run starts instead of hanging the loader or the run.
// Each bound can be raised under `limits:` in the suite config.

/** The `limits:` block of the suite config, every bound filled in. */
export interface Limits {
  /** Largest transcript, calibration or prompt file read, in MB (1 MB = 1,048,576 bytes). */
  max_file_mb: number;
  /** Most keys in one YAML mapping. */
  max_keys: number;
  /** Most values (text, numbers, keys) in one YAML file. */
  max_values: number;
  /** Highest `repeat` (and `--repeat`). */
  max_repeat: number;
  /** Highest `judge_samples`. */
  max_judge_samples: number;
  /** Highest `concurrency` (and `--concurrency`). */
  max_concurrency: number;
}

/**
 * The defaults, each far above real data:
 * - 16 MB per file: a LongMemEval `_s` transcript is about 0.5 MB, a LoCoMo
 *   conversation about 0.3 MB, and a LongMemEval `_m` haystack (about 1.5M
 *   tokens) about 6 MB. A 16 MB prose file loads in about a second; a 50 MB
 *   one took minutes and gigabytes.
 * - 10,000 keys per mapping: the formats' own mappings have a handful of keys
 *   and `meta:` notes a few dozen. A 200,000-key mapping is generated, not written.
 * - 200,000 values per file (text, numbers and keys alike): a LoCoMo
 *   conversation has well under 10,000, a LongMemEval `_m` one some tens of
 *   thousands. The YAML reader costs some microseconds and about a kilobyte
 *   per value, so this bounds any file at a few seconds, however it is written.
 * - repeat 100: pass^N needs a handful of repeats, each a full set of model
 *   calls; `repeat: 1000000000` grew memory until the machine gave out.
 * - judge_samples 20: a majority vote settles within a few samples.
 * - concurrency 256: above the rate limits of hosted APIs; more requests in
 *   flight only queue in sockets and memory.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  max_file_mb: 16,
  max_keys: 10_000,
  max_values: 200_000,
  max_repeat: 100,
  max_judge_samples: 20,
  max_concurrency: 256,
});

export const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as (keyof Limits)[];

const BYTES_PER_MB = 1024 * 1024;

export function maxFileBytes(limits: Pick<Limits, 'max_file_mb'>): number {
  return limits.max_file_mb * BYTES_PER_MB;
}

/** "16 MB", "50.2 MB" for a byte count, for messages about file sizes. */
export function megabytes(bytes: number): string {
  return `${(bytes / BYTES_PER_MB).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** Names the bound a message is about and how to raise it. */
export function limitHint(name: keyof Limits): string {
  return `the bound limits.${name}; raise it under "limits:" in the suite config if this is really meant`;
}

/**
 * Why `value` is over the bound `name` of `limits`, or undefined. Worded to
 * follow "must be": `at most 100 (the bound limits.max_repeat; ...)`, so the
 * config loader and the command-line flags (`--repeat`, `--concurrency`) say the same.
 */
export function overLimit(value: number, name: keyof Limits, limits: Readonly<Limits> = DEFAULT_LIMITS): string | undefined {
  const bound = limits[name];
  return value <= bound ? undefined : `at most ${bound} (${limitHint(name)})`;
}
