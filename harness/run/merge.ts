// `memeval merge`: shards of one run (`memeval run --shard i/n` on n
// machines) combined into the run an unsharded `memeval run` would have
// written. Merging is on records, not on aggregates: the clustered statistics
// and McNemar tests need every probe, so the merged run's reports, statistics
// and gates are computed afresh from all of them. Shards that are not parts
// of one run (another config, model, code version or suite), a shard missing
// or given twice, and a shard still unfinished are refused with the reason.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { CONTEXTS_FILE, contextLine, messageDigest, messageLine, parseContextLine, toRanges } from '../../core/contexts.js';
import { writeChunksAtomic } from '../../core/atomic.js';
import { UsageError } from '../../core/errors.js';
import { readLines } from '../../core/lines.js';
import { isRecord } from '../../core/record.js';
import { answersPerJob, jobKey, type ProbeRecord, type RunInfo, type RunResult, type SummaryRecord, type TurnRecord } from '../../core/types.js';
import { canonicalJson } from '../models/cache.js';
import { stageErrors } from '../../reports/aggregate.js';
import { RUN_FILE, loadRun, runDirOf, runJsonChunks } from '../../reports/load.js';
import { writableDirProblem } from '../schema/files.js';
import { writeReports } from '../../reports/index.js';
import { configRecord, recordedConfig, newRunId } from './run-info.js';
import { shardJobs } from './shards.js';
import { judgeRun } from './verdict.js';

/** A shard as read from its directory. */
interface Shard {
  dir: string;
  run: RunResult;
  shard: NonNullable<RunInfo['shard']>;
}

/** A shard's directory named the way a user gave it, for messages. */
const label = (s: Shard): string => `${s.dir} (shard ${s.shard.index}/${s.shard.count})`;

/** Config entries that may differ between shards run on different machines: where files went. */
const LOCAL_CONFIG_KEYS = new Set(['out', 'baseDir', 'file']);

function sharedConfig(info: RunInfo): unknown {
  return Object.fromEntries(Object.entries(info.config).filter(([key]) => !LOCAL_CONFIG_KEYS.has(key)));
}

/**
 * What must be equal for shards to be parts of one run, each with the words a
 * refusal uses. Node's version and the clock may differ; the code, the
 * config, the models and the suite may not.
 */
const SAME: [what: string, read: (info: RunInfo) => unknown][] = [
  ['memeval version', (i) => i.memevalVersion],
  ['code version (git commit)', (i) => i.gitSha ?? i.provenance?.gitSha],
  ['package versions', (i) => i.packages],
  ['answer model', (i) => i.model],
  ['judge', (i) => i.judge],
  ['repeat count', (i) => i.repeat],
  ['config', sharedConfig],
  ['strategies', (i) => i.strategies],
  ['transcripts', (i) => i.transcripts],
  ['protocol', (i) => i.protocol],
  ['model endpoints', (i) => i.provenance?.endpoints],
  // Batched calls cost half: shards made both ways would mix prices.
  ['way of calling models (--batch or one request each)', (i) => i.batch !== undefined],
];

function readShard(given: string): Shard {
  const run = loadRun(given);
  // A shard may be named by its run.json; its contexts are beside it.
  const dir = runDirOf(given);
  const shard = run.info.shard;
  if (!shard) throw new UsageError(`${dir}: run ${run.info.runId} is not a shard (it was not made with --shard); only shards are merged`);
  return { dir, run, shard };
}

/** Shards numbered 1…n, each once, all of one n. */
function checkNumbering(shards: Shard[]): void {
  const count = shards[0].shard.count;
  const other = shards.find((s) => s.shard.count !== count);
  if (other) throw new UsageError(`${label(other)} belongs to a run split into ${other.shard.count} shards, ${label(shards[0])} to one split into ${count}`);
  const byIndex = new Map<number, Shard[]>();
  for (const s of shards) byIndex.set(s.shard.index, [...(byIndex.get(s.shard.index) ?? []), s]);
  const twice = [...byIndex.values()].find((list) => list.length > 1);
  if (twice) throw new UsageError(`shard ${twice[0].shard.index}/${count} is given more than once: ${twice.map((s) => s.dir).join(', ')}`);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length) throw new UsageError(`missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')}: every shard of the run is needed to merge it`);
}

/** The top-level keys two recorded values differ in, when both are objects (a config: `max_errors` set on one shard's resume, say). */
function differingKeys(a: unknown, b: unknown): string[] {
  if (!isRecord(a) || !isRecord(b)) return [];
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => canonicalJson(a[k]) !== canonicalJson(b[k])).sort();
}

function checkSameRun(shards: Shard[]): void {
  const [first, ...rest] = shards;
  for (const [what, read] of SAME) {
    const expected = canonicalJson(read(first.run.info));
    const other = rest.find((s) => canonicalJson(read(s.run.info)) !== expected);
    if (!other) continue;
    const keys = differingKeys(read(first.run.info), read(other.run.info));
    const which = keys.length ? ` (${keys.join(', ')})` : '';
    throw new UsageError(`${label(other)} and ${label(first)} differ in their ${what}${which}: they are not shards of one run`);
  }
}

/** Each shard must be finished (an interrupted one is resumed first) and hold the jobs the split gives it. */
function checkShardJobs(shards: Shard[]): void {
  const info = shards[0].run.info;
  const sizes = info.transcripts.map((t) => ({ id: t.id, turns: t.turns, probes: t.probes }));
  const split = shardJobs(info.strategies.map((s) => s.id), sizes, info.repeat, shards[0].shard.count);
  // What the whole run owes, job by job: each shard's info names only its own jobs.
  const owed = answersPerJob({ ...info, shard: undefined });
  for (const s of shards) {
    const status = s.run.info.status;
    if (status === 'running' || status === 'interrupted') {
      throw new UsageError(`${label(s)} is ${status}; finish it with memeval run --resume ${s.dir}, then merge`);
    }
    if (canonicalJson(s.shard.jobs) !== canonicalJson(split[s.shard.index - 1])) {
      throw new UsageError(`${label(s)} does not hold the jobs its shard number gives it; it was not made by this version's --shard`);
    }
    const jobs = new Set(s.shard.jobs);
    const stray = [...s.run.probes, ...s.run.summaries, ...s.run.turns].find((r) => !jobs.has(jobKey(r.strategy, r.transcript)));
    if (stray) throw new UsageError(`${label(s)} holds records of job ${jobKey(stray.strategy, stray.transcript)}, which is not one of its jobs`);
    checkUnique(s);
    // A failed shard stopped early and says so; a finished one must hold an answer for every probe, or the merged rates would rest on fewer.
    if (status !== 'failed') {
      checkProbeCounts(s, owed);
      checkTurnsAndSummaries(s);
    }
  }
}

/** No record twice: a probe answer, summary or turn counted twice would weigh twice in every rate. */
function checkUnique(s: Shard): void {
  const kinds: [what: string, keys: string[]][] = [
    ['probe answer', s.run.probes.map((p) => `${jobKey(p.strategy, p.transcript)}: probe ${p.probe}, repeat ${p.repeat}`)],
    ['summary', s.run.summaries.map((m) => `${jobKey(m.strategy, m.transcript)}: summary ${m.index}`)],
    ['turn record', s.run.turns.map((t) => `${jobKey(t.strategy, t.transcript)}: turn ${t.turn}`)],
  ];
  for (const [what, keys] of kinds) {
    const seen = new Set<string>();
    for (const key of keys) {
      if (seen.has(key)) throw new UsageError(`${label(s)} holds the ${what} of job ${key} twice; its run.json is damaged`);
      seen.add(key);
    }
  }
}

/** Every job of a finished shard has its transcript's probes × repeat answers (errored ones included). */
function checkProbeCounts(s: Shard, expected: ReadonlyMap<string, number>): void {
  const counts = new Map<string, number>();
  for (const p of s.run.probes) {
    const job = jobKey(p.strategy, p.transcript);
    counts.set(job, (counts.get(job) ?? 0) + 1);
  }
  for (const job of s.shard.jobs) {
    const want = expected.get(job) ?? 0;
    const have = counts.get(job) ?? 0;
    if (have !== want) throw new UsageError(`${label(s)} has ${have} of the ${want} probe answers of job ${job}; its run.json is not a finished shard's`);
  }
}

/**
 * Every job of a finished shard has a turn record for each turn of its transcript, and a
 * summary record for each summarisation its turns counted. A run.json cut short would
 * otherwise merge as complete, its turn and summary figures (and their gates) over what is left.
 */
function checkTurnsAndSummaries(s: Shard): void {
  const turns = new Map<string, number>();
  const events = new Map<string, number>();
  const summaries = new Map<string, number>();
  const add = (counts: Map<string, number>, job: string, n: number) => counts.set(job, (counts.get(job) ?? 0) + n);
  for (const t of s.run.turns) {
    add(turns, jobKey(t.strategy, t.transcript), 1);
    add(events, jobKey(t.strategy, t.transcript), t.summaries);
  }
  for (const m of s.run.summaries) add(summaries, jobKey(m.strategy, m.transcript), 1);
  const jobs = new Set(s.shard.jobs);
  for (const strategy of s.run.info.strategies) {
    for (const t of s.run.info.transcripts) {
      const job = jobKey(strategy.id, t.id);
      if (!jobs.has(job)) continue;
      const have = turns.get(job) ?? 0;
      if (have !== t.turns) throw new UsageError(`${label(s)} has ${have} of the ${t.turns} turn records of job ${job}; its run.json is not a finished shard's`);
      const made = summaries.get(job) ?? 0;
      const counted = events.get(job) ?? 0;
      if (made !== counted) throw new UsageError(`${label(s)} has ${made} summary records of job ${job}, whose turns counted ${counted}; its run.json is not a finished shard's`);
    }
  }
}

interface JobRecords {
  turns: TurnRecord[];
  summaries: SummaryRecord[];
  probes: ProbeRecord[];
}

/** The records of every job, in the order an unsharded run writes them (its jobs in order; each job's records as its shard wrote them). */
function mergedRecords(shards: Shard[]): JobRecords {
  const byJob = new Map<string, JobRecords>();
  const of = (r: { strategy: string; transcript: string }): JobRecords => {
    const key = jobKey(r.strategy, r.transcript);
    let job = byJob.get(key);
    if (!job) byJob.set(key, (job = { turns: [], summaries: [], probes: [] }));
    return job;
  };
  for (const { run } of shards) {
    for (const t of run.turns) of(t).turns.push(t);
    for (const s of run.summaries) of(s).summaries.push(s);
    for (const p of run.probes) of(p).probes.push(p);
  }
  const info = shards[0].run.info;
  const out: JobRecords = { turns: [], summaries: [], probes: [] };
  for (const strategy of info.strategies) {
    for (const transcript of info.transcripts) {
      const job = byJob.get(jobKey(strategy.id, transcript.id));
      if (!job) continue;
      out.turns.push(...job.turns);
      out.summaries.push(...job.summaries);
      out.probes.push(...job.probes);
    }
  }
  return out;
}

/** The merged run's status, decided as a run decides its own: a failed shard fails it; otherwise errors against max_errors. */
function mergedVerdict(shards: Shard[], run: RunResult, dir: string): Pick<RunInfo, 'status' | 'failure'> {
  const failed = shards.find((s) => s.run.info.status === 'failed');
  if (failed) return { status: 'failed', failure: `shard ${failed.shard.index}/${failed.shard.count} failed: ${failed.run.info.failure ?? 'no reason recorded'}` };
  const config = recordedConfig(shards[0].run.info, dir);
  const expected = sum([...answersPerJob(run.info).values()]);
  const verdict = judgeRun(stageErrors(run), config.max_errors ?? { kind: 'count', value: 0 }, undefined, expected - run.probes.length);
  if (verdict.status !== 'incomplete') return { status: verdict.status };
  const errored = shards.filter((s) => s.run.info.status === 'incomplete').map((s) => s.dir);
  return { status: 'incomplete', failure: `${verdict.failure} The shards with errors: ${errored.join(', ') || 'none alone (together they exceed max_errors)'}; resume them, then merge again.` };
}

function sum(values: (number | undefined)[]): number {
  return values.reduce<number>((n, v) => n + (v ?? 0), 0);
}

function mergedInfo(shards: Shard[], dir: string): RunInfo {
  const infos = shards.map((s) => s.run.info);
  const { shard: _shard, ...base } = infos[0];
  // Paths in a recorded config are relative to its run directory: recorded again for the merged one.
  const config = configRecord(recordedConfig(infos[0], resolve(shards[0].dir)), dir);
  const calls = infos.map((i) => i.calls);
  const redactions = infos.map((i) => i.redactions).filter((r) => r !== undefined);
  const info: RunInfo = {
    ...base,
    runId: basename(dir),
    config,
    startedAt: infos.map((i) => i.startedAt).sort()[0],
    finishedAt: infos.map((i) => i.finishedAt ?? '').sort().at(-1),
    calls: {
      made: sum(calls.map((c) => c?.made)),
      cacheHits: sum(calls.map((c) => c?.cacheHits)),
      dedupHits: sum(calls.map((c) => c?.dedupHits)),
      errors: sum(calls.map((c) => c?.errors)),
    },
    mergedFrom: shards.map((s) => ({ runId: s.run.info.runId, shard: `${s.shard.index}/${s.shard.count}` })),
  };
  // Each shard counted the distinct values it redacted; the largest count is a lower bound for the run.
  if (redactions.length) info.redactions = redactions.reduce((a, b) => (b.total > a.total ? b : a));
  else delete info.redactions;
  const batches = infos.map((i) => i.batch);
  if (batches[0]) {
    info.batch = {
      requests: sum(batches.map((b) => b?.requests)),
      batches: sum(batches.map((b) => b?.batches)),
      failedLines: sum(batches.map((b) => b?.failedLines)),
    };
  }
  return info;
}

/**
 * contexts.jsonl of the merged run: every shard's messages and contexts, each
 * once. Context refs are digests of their messages, equal in every run, so
 * records keep their refs; message numbers are per file and are renumbered.
 */
function* mergedContexts(dirs: string[], refs: Set<string>): Generator<string> {
  const numbers = new Map<string, number>();
  for (const dir of dirs) {
    const file = join(dir, CONTEXTS_FILE);
    if (!existsSync(file)) continue;
    const local = new Map<number, number>();
    for (const { text } of readLines(file, { invalidUtf8: 'replace' })) {
      const line = parseContextLine(text);
      if (!line) continue;
      if ('m' in line) {
        const digest = messageDigest(line);
        let id = numbers.get(digest);
        if (id === undefined) {
          id = numbers.size;
          numbers.set(digest, id);
          yield `${messageLine(id, line)}\n`;
        }
        local.set(line.m, id);
      } else if (!refs.has(line.c)) {
        refs.add(line.c);
        const ids: number[] = [];
        for (const [from, to] of line.r) for (let m = from; m <= to; m++) ids.push(local.get(m) ?? -1);
        if (ids.includes(-1)) throw new UsageError(`${file}: context ${line.c} names a message the file does not hold (the file is damaged)`);
        yield `${contextLine(line.c, toRanges(ids))}\n`;
      }
    }
  }
}

/** A record whose context (probe) or request (summary) the merged contexts.jsonl does not hold, and the shard it came from. */
function unresolvedRef(shards: Shard[], refs: ReadonlySet<string>): { dir: string; what: string; ref: string } | undefined {
  for (const s of shards) {
    for (const p of s.run.probes) {
      if (p.contextRef !== undefined && !refs.has(p.contextRef)) return { dir: s.dir, what: `probe ${p.probe} of job ${jobKey(p.strategy, p.transcript)}`, ref: p.contextRef };
    }
    for (const m of s.run.summaries) {
      if (m.requestRef !== undefined && !refs.has(m.requestRef)) return { dir: s.dir, what: `summary ${m.index} of job ${jobKey(m.strategy, m.transcript)}`, ref: m.requestRef };
    }
  }
  return undefined;
}

export interface MergeOptions {
  /** Shard run directories, in any order. */
  dirs: string[];
  /** The merged run's directory; default: a new run id beside the first shard. */
  out?: string;
}

export interface MergeOutcome {
  dir: string;
  run: RunResult;
}

function outputDir(shards: Shard[], out: string | undefined): string {
  const dir = out ? resolve(out) : join(dirname(resolve(shards[0].dir)), `${newRunId(recordedConfig(shards[0].run.info, resolve(shards[0].dir)))}-merged`);
  const problem = writableDirProblem(dir);
  if (problem) throw new UsageError(`--out ${out ?? dir} ${problem}`);
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new UsageError(`${out ?? dir}: not empty; the merged run needs a new directory`);
  if (shards.some((s) => resolve(s.dir) === dir)) throw new UsageError(`${out}: is one of the shards`);
  return dir;
}

/** Checks the shards, writes the merged run's run.json, contexts.jsonl and reports, and returns it. */
export async function mergeShards(opts: MergeOptions): Promise<MergeOutcome> {
  if (opts.dirs.length === 0) throw new UsageError('usage: memeval merge SHARD_DIR… [--out DIR]');
  const shards = opts.dirs.map(readShard);
  checkNumbering(shards);
  checkSameRun(shards);
  checkShardJobs(shards);
  shards.sort((a, b) => a.shard.index - b.shard.index);
  const dir = outputDir(shards, opts.out);
  const made = !existsSync(dir);
  mkdirSync(dir, { recursive: true });
  const run: RunResult = { info: mergedInfo(shards, dir), ...mergedRecords(shards) };
  Object.assign(run.info, mergedVerdict(shards, run, dir));
  if (run.info.status !== 'incomplete' && run.info.status !== 'failed') delete run.info.failure;
  run.info.errors = stageErrors(run);
  const refs = new Set<string>();
  writeChunksAtomic(join(dir, CONTEXTS_FILE), mergedContexts(shards.map((s) => s.dir), refs));
  const lost = unresolvedRef(shards, refs);
  if (lost) {
    // Only what this merge made goes: a directory the user made (a mount point, say) stays.
    rmSync(made ? dir : join(dir, CONTEXTS_FILE), { recursive: made, force: true });
    throw new UsageError(`${lost.dir}: ${lost.what} names context ${lost.ref}, which its ${CONTEXTS_FILE} does not hold (missing or damaged); the merged run would lose it`);
  }
  writeChunksAtomic(join(dir, RUN_FILE), runJsonChunks(run));
  const written = loadRun(dir);
  await writeReports(written, dir);
  return { dir, run: written };
}
