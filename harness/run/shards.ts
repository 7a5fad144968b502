// Splitting a run's jobs (transcript × strategy) into n shards that separate
// machines can run, and checking that shards handed to `memeval merge` make
// up one run. The split is a pure function of what run.json records (the
// strategies, the transcripts' turn and probe counts, the repeat count), so
// every machine computes the same one and merge can check it.
import { UsageError } from '../../core/errors.js';
import { jobKey } from '../../core/types.js';

export interface ShardSpec {
  /** 1-based. */
  index: number;
  count: number;
}

/** What the split needs of a transcript: its id and size. */
export interface ShardTranscript {
  id: string;
  turns: number;
  probes: number;
}

/** `--shard 2/3` → { index: 2, count: 3 }. */
export function parseShard(value: string): ShardSpec {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard must be i/n with 1 ≤ i ≤ n, such as 2/3 (got "${value}")`);
  }
  return { index, count };
}

/**
 * A job's estimated work: replaying the transcript (its turns) and answering
 * each probe over a context that grows with the turns. Only the order of the
 * estimates matters, for balancing.
 */
export function jobWork(t: ShardTranscript, repeat: number): number {
  return Math.max(1, t.turns) * (1 + t.probes * repeat);
}

/**
 * The job keys of each shard, in the run's own job order (strategy by
 * strategy, transcript by transcript). Jobs are dealt heaviest first, each to
 * the shard with the least work so far (the lowest index on a tie), which
 * keeps shards within one job's work of each other.
 */
export function shardJobs(strategies: readonly string[], transcripts: readonly ShardTranscript[], repeat: number, count: number): string[][] {
  const jobs = strategies.flatMap((s) => transcripts.map((t) => ({ key: jobKey(s, t.id), work: jobWork(t, repeat) })));
  if (count > jobs.length) {
    throw new UsageError(`--shard …/${count}: the run has ${jobs.length} job${jobs.length === 1 ? '' : 's'} (transcripts × strategies), so at most ${jobs.length} shards`);
  }
  const order = jobs.map((_, i) => i).sort((a, b) => jobs[b].work - jobs[a].work || a - b);
  const load = new Array<number>(count).fill(0);
  const owner = new Array<number>(jobs.length);
  for (const i of order) {
    let lightest = 0;
    for (let s = 1; s < count; s++) if (load[s] < load[lightest]) lightest = s;
    owner[i] = lightest;
    load[lightest] += jobs[i].work;
  }
  const shards: string[][] = Array.from({ length: count }, () => []);
  jobs.forEach((job, i) => shards[owner[i]].push(job.key));
  return shards;
}
