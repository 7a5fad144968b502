// Runs a suite: transcripts × strategies replayed, probes answered and graded,
// summaries graded, everything journaled as it finishes, reports written at the end.
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { SuiteConfig, StrategyConfig } from '../config.js';
import { readSuite, reloadTranscript, transcriptSource, type TranscriptSource } from '../datasets/transcript.js';
import { Journal, JOURNAL_FILE, finishedWork, readJournal, requestRefs, type FinishedWork } from './journal.js';
import { writeChunksAtomic, writeFileAtomic } from '../../core/atomic.js';
import { replayTranscript, type ReplayResult } from './replay.js';
import { createRunDir, lockRunDir, removeStalePartials, removeStaleTemps } from './run-dir.js';
import { yieldToEvents } from './yield.js';
import { startJobs } from './start-jobs.js';
import { RUN_FILE, loadRunInfo, runJsonChunks } from '../../reports/load.js';
import { JournaledSummaries, type FreshFrom } from './journaled-summaries.js';
import { TokenCounter } from '../../core/tokens.js';
import { CONTEXTS_FILE, readContexts, requestMessages, StoredRequests } from '../../core/contexts.js';
import { ContextStore } from './context-store.js';
import { Progress } from './progress.js';
import type { StrategyRegistry } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import { buildGraders, modelSpecs, type Graders } from './grading.js';
import { ModelSetupError } from '../models/create.js';
import { promptCacheFor } from '../models/prices.js';
import { answerProbe, regradeProbe, type ProbeTask } from './probes.js';
import { runInfo, newRunId, transcriptHeader, type TranscriptHeader } from './run-info.js';
import { writeReports } from '../../reports/index.js';
import { redact, redactDeep, redactionCounts, resetRedactionCount, type RedactionCounts } from '../../core/secrets.js';
import { InputError, UsageError, fileProblem, isInputError, type Problem } from '../../core/errors.js';
import { judgeRun } from './verdict.js';
import { isProbeError, probeErrorStage, stageErrors, summaryErrorStage, summaryErrored, summaryJudgeErrored as gradeErrored } from '../../reports/aggregate.js';
import { ERROR_STAGES, answersPerJob, jobKey, type ErrorStage, type MadeSummary, type ProbeRecord, type RunInfo, type RunResult, type SummaryRecord, type Transcript, type TurnRecord } from '../../core/types.js';
import { DEFAULT_LIMITS, type Limits } from '../schema/limits.js';
import { turnTables } from '../../core/schema/run.js';
import { shardJobs, type ShardSpec } from './shards.js';
import { BatchRun, batchProblem, type BatchSettings } from './batch.js';
import { NO_PROGRESS } from './progress.js';
import type { CallRouter } from '../models/cache.js';

export interface RunOptions {
  config: SuiteConfig;
  /** Strategy ids to run (default: all in the config). */
  only?: string[];
  /** Resume this run directory instead of starting a new one. */
  resumeDir?: string;
  /** The run.json `info` of `resumeDir`, when the caller has read it already (it can hold every record so far). */
  resumeInfo?: RunInfo;
  /** Aborts scheduling new work (Ctrl-C); finished work stays journaled. */
  signal?: AbortSignal;
  /** The strategies the config was parsed with (default: the built-in ones). */
  registry?: StrategyRegistry;
  /** Run only this shard's jobs (`--shard i/n`); a resumed shard gets it from its run.json. */
  shard?: ShardSpec;
  /** Make the model calls through the Batch API (`--batch`); a resumed batch run goes on in batch mode. */
  batch?: BatchSettings;
  /** How much transcript text the run keeps from its check for its jobs (default KEEP_CHECKED_CHARS; 0 reads every transcript again). */
  keepCheckedChars?: number;
  log?: (line: string) => void;
}

export interface RunOutcome {
  dir: string;
  run: RunResult;
  /** Stopped by the user (Ctrl-C); resumable. A run stopped by an unfixable error is `run.info.status === 'failed'` instead. */
  interrupted: boolean;
}

interface Job {
  key: string;
  transcript: Transcript;
  strategy: StrategyConfig;
}

/**
 * One transcript of the suite, shared by its strategies' jobs. The transcript
 * is let go once the last of them has finished: records are what the reports
 * need, and a large suite's transcripts would otherwise stay in memory beside
 * them to the end of the run.
 */
class TranscriptSlot {
  readonly id: string;
  /** Each probe's position in the transcript: records are put in this order. */
  readonly probeOrder: Map<string, number>;
  private pending = 0;
  private transcript: Transcript | undefined;

  constructor(
    header: TranscriptHeader,
    private readonly source: TranscriptSource,
    private readonly limits: Readonly<Limits>,
    readonly index: number,
    /** The transcript as it was checked, when the run keeps it rather than reading it again (KEEP_CHECKED_CHARS). */
    checked?: Transcript,
  ) {
    this.id = header.id;
    this.probeOrder = new Map(header.probes.map((p, i) => [p.id, i]));
    this.transcript = checked;
  }

  /** One more job will take this transcript. */
  expect(): void {
    this.pending++;
  }

  /** The whole transcript: kept from the check, or read again from its file by the first job that takes it. */
  take(): Transcript {
    if (this.pending <= 0) throw new Error(`transcript ${this.id} was released before all its jobs ran`);
    this.transcript ??= reloadTranscript(this.source, this.limits);
    return this.transcript;
  }

  /** A job that took it is done with it. */
  release(): void {
    if (--this.pending === 0) this.transcript = undefined;
  }
}

/** A job as scheduled: its transcript is taken when it starts. */
interface PlannedJob {
  key: string;
  slot: TranscriptSlot;
  strategy: StrategyConfig;
}

/** Everything a job needs, built once per run. */
interface RunContext {
  config: SuiteConfig;
  graders: Graders;
  registry: StrategyRegistry;
  counter: TokenCounter;
  journal: Journal;
  /** contexts.jsonl: each context a probe was sent, stored once. */
  contexts: ContextStore;
  done: FinishedWork;
  progress: Progress;
  /** Fires on Ctrl-C and when an error retries cannot fix stops the run. */
  signal: AbortSignal;
  stop: () => void;
  /** Errors met so far, per stage, for the progress line. */
  errors: Record<ErrorStage, number>;
  /** Runs calls that depend on one another as one chain (what a `--batch` round holds back together); otherwise just runs them. */
  chain: CallChains;
  /** Jobs that threw (a bug in a strategy or in memeval, not a model's error), in the order they did; `job` names its strategy and transcript. */
  crashes: JobCrash[];
}

interface JobCrash {
  job: string;
  message: string;
  /** The job's transcript failed its check when read again (it changed during the run). */
  input: boolean;
}

type CallChains = <T>(work: () => Promise<T>) => Promise<T>;
const UNCHAINED: CallChains = (work) => work();

/** An errored record is re-attempted on resume; a finished one never is. */
const replayErrored = (summaries: SummaryRecord[]): boolean => summaries.some(summaryErrored);

/** After each finished item: count its error, if any, and stop the run if an endpoint is known to be unusable. */
function afterItem(ctx: RunContext, stage: ErrorStage | undefined): void {
  if (stage) ctx.errors[stage]++;
  if (ctx.graders.fatal()) ctx.stop();
}

/** `--strategies` names a strategy by its id, or every point of a sweep by the sweep's id. */
function selectStrategies(config: SuiteConfig, only?: string[]): StrategyConfig[] {
  if (!only?.length) return config.strategies;
  const named = (s: StrategyConfig, id: string) => s.id === id || s.sweep?.group === id;
  const unknown = only.filter((id) => !config.strategies.some((s) => named(s, id)));
  if (unknown.length) {
    const known = config.strategies.map((s) => s.id).join(', ');
    // Bad input, not a failed run: exit 2 with a one-line reason.
    throw new InputError([fileProblem('--strategies', `unknown strategy id ${unknown.join(', ')} (configured: ${known})`)]);
  }
  return config.strategies.filter((s) => only.some((id) => named(s, id)));
}

const probeKey = (job: string, probe: string, repeat: number): string => `${job}::${probe}::${repeat}`;
const summaryKey = (job: string, index: number): string => `${job}::summary::${index}`;

/** Replays a job; a journaled replay's summaries are served back rather than made again. */
async function replayJob(job: Job, ctx: RunContext, journaled: JournaledSummaries): Promise<ReplayResult> {
  const definition = ctx.registry.get(job.strategy.use);
  if (!definition) throw new Error(`strategy "${job.strategy.use}" is not registered`);
  return replayTranscript({
    transcript: job.transcript,
    strategyId: job.strategy.id,
    definition,
    options: job.strategy.options,
    counter: ctx.counter,
    makeSummarizer: (options) => journaled.wrap(ctx.graders.makeSummarizer(options)),
    serverCompaction: ctx.graders.serverCompaction,
    embedder: ctx.graders.embedder,
    stop: ctx.signal,
    promptCache: promptCacheFor(ctx.config.model, ctx.config.providers),
  });
}

/**
 * Opens the context store and reads what a resumed run's journal holds. The
 * journaled summaries get their requests back from the lines the store reads
 * back as it opens: contexts.jsonl is read once.
 */
function readBackRun(journalPath: string, contexts: ContextStore): FinishedWork {
  const entries = readJournal(journalPath);
  const requests = new StoredRequests(requestRefs(entries));
  contexts.open((line) => requests.take(line));
  return finishedWork(entries, (ref) => requests.get(ref));
}

/** A summary record naming its request by reference instead of carrying it. */
function byReference(summary: SummaryRecord, requestRef: string | undefined): SummaryRecord {
  const { request, ...rest } = summary;
  return requestRef === undefined ? summary : { ...rest, requestRef };
}

/** Journaled grades are reused for the summaries before `fresh`: those after it are new summaries under old indexes. */
async function gradeSummaries(job: Job, summaries: MadeSummary[], refs: (string | undefined)[], ctx: RunContext, fresh: FreshFrom | undefined): Promise<SummaryRecord[]> {
  const graded: SummaryRecord[] = [];
  // Stored redacted, naming its request in contexts.jsonl (stored, redacted, by the caller) rather than
  // carrying it: the request is most of a summary's text, and redacting it again would be wasted.
  const stored = (summary: MadeSummary, i: number): SummaryRecord => redactDeep(byReference(summary, refs[i]));
  for (const [i, summary] of summaries.entries()) {
    const key = summaryKey(job.key, summary.index);
    if (summary.opaque) {
      // A server compaction has no text to check or judge: stored ungraded, which is no judge error.
      graded.push(stored(summary, i));
      continue;
    }
    const journaled = fresh && summary.index >= fresh.index ? undefined : ctx.done.summaryGrades.get(key);
    let record: SummaryRecord | undefined = journaled && stored({ ...summary, grades: journaled }, i);
    if (!record || gradeErrored(record)) {
      await yieldToEvents();
      if (ctx.signal.aborted) {
        // Ungraded, but still stored redacted: its text quotes the transcript.
        graded.push(stored(summary, i));
        continue;
      }
      const previous = graded.at(-1);
      record = stored(await ctx.chain(() => ctx.graders.gradeSummary(job.transcript, summary, previous, job.strategy)), i);
      // The grades only: the summary is journaled with its replay.
      if (record.grades) ctx.journal.append({ type: 'summary-grade', key, grades: record.grades });
      // Counted as the reports count it; a summarizer failure was counted with its replay.
      afterItem(ctx, summaryErrorStage(record) === 'summary-judge' ? 'summary-judge' : undefined);
    }
    graded.push(record);
  }
  return graded;
}

/** Journaled answers are reused for probes asked before `fresh`: after it the context differs from the one they were given on. */
async function runProbes(job: Job, replay: ReplayResult, ctx: RunContext, fresh: FreshFrom | undefined): Promise<ProbeRecord[]> {
  const tasks: Promise<ProbeRecord | undefined>[] = [];
  for (const probeCtx of replay.probes) {
    const reuse = !fresh || probeCtx.probe.afterTurn < fresh.turn;
    for (let r = 1; r <= ctx.config.repeat; r++) {
      const key = probeKey(job.key, probeCtx.probe.id, r);
      const finished = reuse ? ctx.done.probes.get(key) : undefined;
      if (finished && !isProbeError(finished)) {
        // Progress counts probe answers, so journaled ones count as done.
        ctx.progress.tick();
        tasks.push(Promise.resolve(finished));
        continue;
      }
      // Answered, but not graded: the judge failed, or the run stopped before it judged.
      const ungraded = finished?.errorStage === 'judge' && finished.answer !== undefined ? finished : undefined;
      tasks.push(
        ctx.chain(async () => {
          await yieldToEvents();
          if (ctx.signal.aborted) return undefined;
          const task: ProbeTask = { transcript: job.transcript, strategy: job.strategy.id, context: probeCtx, repeat: r, keepContext: (c) => ctx.contexts.keep(c) };
          const answered = ungraded ? await regradeProbe(task, ungraded, ctx.graders) : await answerProbe(task, ctx.graders);
          // Graded on the real text, stored redacted: transcripts and answers can quote API keys.
          const record = redactDeep(answered);
          // A call cut short by Ctrl-C is not an answer; it is asked again on resume. An answer whose
          // judging was cut short is kept: resume judges it without asking the model again.
          if (ctx.signal.aborted && record.errorStage !== 'judge' && record.error && !ctx.graders.fatal()) return undefined;
          ctx.journal.append({ type: 'probe', key, record });
          // Counted before the tick, so the progress line it draws includes this item's error.
          afterItem(ctx, probeErrorStage(record));
          ctx.progress.tick();
          return record;
        }),
      );
    }
  }
  const records = await Promise.all(tasks);
  return records.filter((r): r is ProbeRecord => r !== undefined);
}

interface JobResult {
  turns: TurnRecord[];
  summaries: SummaryRecord[];
  probes: ProbeRecord[];
  complete: boolean;
}

/**
 * A job finished before an interruption is rebuilt from the journal, not
 * redone, unless some of its items errored: those are re-attempted.
 */
function journaledJob(job: PlannedJob, ctx: RunContext): JobResult | undefined {
  const replay = ctx.done.replays.get(job.key);
  if (!ctx.done.jobsDone.has(job.key) || !replay || replayErrored(replay.summaries)) return undefined;
  const probes: ProbeRecord[] = [];
  for (const probe of job.slot.probeOrder.keys()) {
    for (let r = 1; r <= ctx.config.repeat; r++) {
      const record = ctx.done.probes.get(probeKey(job.key, probe, r));
      if (!record || isProbeError(record)) return undefined;
      probes.push(record);
    }
  }
  const summaries = replay.summaries.map((s) => {
    const grades = ctx.done.summaryGrades.get(summaryKey(job.key, s.index));
    // The request read back for the replay is not kept: the record names it.
    return byReference(grades ? { ...s, grades } : s, s.requestRef);
  });
  if (summaries.some(gradeErrored)) return undefined;
  ctx.progress.tick(probes.length);
  return { turns: replay.turns, summaries, probes, complete: true };
}

async function runPlannedJob(planned: PlannedJob, ctx: RunContext): Promise<JobResult> {
  try {
    // A job the journal holds whole needs only the probe ids of its transcript, not the file read again.
    return journaledJob(planned, ctx) ?? (await ctx.chain(() => runJob({ key: planned.key, transcript: planned.slot.take(), strategy: planned.strategy }, ctx)));
  } catch (error) {
    // Work cut short by Ctrl-C is unfinished, not broken.
    if (ctx.signal.aborted) return { turns: [], summaries: [], probes: [], complete: false };
    return crashed(`strategy ${planned.strategy.id} on transcript ${planned.slot.id}`, error, ctx);
  } finally {
    planned.slot.release();
  }
}

/**
 * A job that threw ends alone: the other jobs go on and are reported, and the
 * run is FAILED, naming the job and the error. Its answers already journaled
 * stay there for `--resume`; none of its probes counts as measured here.
 */
function crashed(job: string, error: unknown, ctx: RunContext): JobResult {
  const input = isInputError(error);
  const message = redact(error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim() || '(no message)';
  ctx.crashes.push({ job, message, input });
  ctx.progress.note(`memeval: the job of ${job} stopped: ${message}`);
  if (!input && process.env.MEMEVAL_DEBUG && error instanceof Error && error.stack) ctx.progress.note(redact(error.stack));
  return { turns: [], summaries: [], probes: [], complete: true };
}

async function runJob(job: Job, ctx: RunContext): Promise<JobResult> {
  const previous = ctx.done.replays.get(job.key);
  // Summaries already made are served from the journal: only a summary that
  // failed (and those after it) is made again, and the views, turns and probe
  // contexts before it are the journaled replay's.
  const served = new JournaledSummaries(previous?.summaries ?? []);
  const replay = await replayJob(job, ctx, served);
  if (replay.stopped) return { turns: [], summaries: [], probes: [], complete: false };
  const fresh = served.freshFrom(replay.summaries);
  // Requests are stored once each in contexts.jsonl; records name them. Redacted
  // whole before they are cut into lines: a secret can span lines (a PEM block).
  const refs = replay.summaries.map((s) => ctx.contexts.keep(requestMessages(redactDeep(s.request))));
  if (!previous || fresh) {
    ctx.journal.append({ type: 'replay', job: job.key, turns: [...turnTables(replay.turns)], summaries: replay.summaries.map((s, i) => redactDeep(byReference(s, refs[i]))) });
    ctx.errors.summarizer += replay.summaries.filter(summaryErrored).length;
  }
  const summaries = await gradeSummaries(job, replay.summaries, refs, ctx, fresh);
  const probes = await runProbes(job, replay, ctx, fresh);
  const expected = replay.probes.length * ctx.config.repeat;
  const complete = probes.length === expected && !ctx.signal.aborted;
  if (complete) ctx.journal.append({ type: 'job-done', job: job.key });
  checkpoint(ctx);
  const turns = previous && !fresh ? previous.turns : replay.turns;
  return { turns, summaries, probes, complete };
}

/**
 * Forces finished work to disk every few seconds, the contexts first: a
 * journaled record must never name a context a machine crash lost.
 */
function checkpoint(ctx: RunContext): void {
  if (!ctx.journal.checkpointDue()) return;
  ctx.contexts.sync();
  ctx.journal.sync();
}

/**
 * A resumed run must read the text it started with: records of two texts
 * would be mixed in one run (and a shard made of them would merge as one).
 * Runs recorded before digests were kept are not checked.
 */
function refuseChangedTranscripts(transcripts: readonly TranscriptHeader[], previous: RunInfo): void {
  const recorded = new Map(previous.transcripts.map((t) => [t.id, t.sha256]));
  const problems: Problem[] = [];
  const startOver = 'a resumed run must read what it started with: start a new run';
  for (const t of transcripts) {
    const was = recorded.get(t.id);
    if (was !== undefined && t.sha256 !== undefined && was !== t.sha256) {
      problems.push(fileProblem(t.file, `changed since the run started (its sha256 differs from the one in run.json); ${startOver}`));
    }
  }
  // Runs recorded before the list existed have none to hold the suite to.
  if (previous.transcripts.length > 0) {
    const now = new Set(transcripts.map((t) => t.id));
    for (const t of previous.transcripts) {
      if (!now.has(t.id)) problems.push(fileProblem(t.file, `transcript ${t.id} of the run is no longer in the suite (its file is gone or no longer matched); resumed without it, its finished answers would be dropped: restore it, or start a new run`));
    }
    for (const t of transcripts) {
      if (!recorded.has(t.id)) problems.push(fileProblem(t.file, `transcript ${t.id} was not in the suite when the run started; ${startOver}`));
    }
  }
  if (problems.length > 0) throw new InputError(problems);
}

/** The run's jobs, strategy by strategy; a shard's run keeps only the keys in `only`. */
function planJobs(slots: TranscriptSlot[], strategies: StrategyConfig[], only: ReadonlySet<string> | undefined): PlannedJob[] {
  const jobs: PlannedJob[] = [];
  for (const strategy of strategies) {
    for (const slot of slots) {
      const key = jobKey(strategy.id, slot.id);
      if (only && !only.has(key)) continue;
      slot.expect();
      jobs.push({ key, slot, strategy });
    }
  }
  return jobs;
}

/**
 * A shard's jobs and its record in run.json. A resumed shard must come out
 * the same as it started: the split depends on the transcripts' sizes, so a
 * transcript that changed since would move jobs between shards.
 */
function shardOf(opts: RunOptions, strategies: StrategyConfig[], transcripts: readonly TranscriptHeader[], repeat: number): RunInfo['shard'] {
  const recordedSpec = opts.resumeInfo?.shard && { index: opts.resumeInfo.shard.index, count: opts.resumeInfo.shard.count };
  const spec = opts.shard ?? recordedSpec;
  if (!spec) return undefined;
  const sizes = transcripts.map((t) => ({ id: t.id, turns: t.turnCount, probes: t.probes.length }));
  const jobs = shardJobs(strategies.map((s) => s.id), sizes, repeat, spec.count)[spec.index - 1];
  const recorded = opts.resumeInfo?.shard;
  if (opts.resumeDir && !recorded) throw new UsageError(`${opts.resumeDir}: the run was not started as a shard, so it cannot be resumed as one`);
  if (recorded && recorded.jobs.join('\n') !== jobs.join('\n')) {
    throw new UsageError(`${opts.resumeDir}: shard ${spec.index}/${spec.count} no longer has the jobs it started with (a transcript was added, removed or resized since); start the shards again`);
  }
  return { index: spec.index, count: spec.count, jobs };
}

/**
 * Runs the strategies of one transcript side by side: their early probes often
 * see the same view, so identical requests are in flight together and made once
 * (and the transcript is let go soon after it was first taken).
 */
function scheduleOrder(jobs: PlannedJob[]): number[] {
  return jobs.map((_, i) => i).sort((a, b) => jobs[a].slot.index - jobs[b].slot.index || a - b);
}

/** Which jobs threw, for run.json's failure: the first with its error, the others by name, and what to do. */
function crashText(crashes: readonly JobCrash[]): { what: string; hint: string } | undefined {
  if (crashes.length === 0) return undefined;
  const [first, ...rest] = crashes;
  const names = rest.slice(0, 5).map((c) => c.job).join('; ') + (rest.length > 5 ? '; …' : '');
  const others = rest.length === 0 ? '' : ` (and ${rest.length} more job(s): ${names})`;
  // A transcript that changed under the run is the input's fault; anything else is a bug, in memeval or a strategy.
  if (first.input) return { what: `The job of ${first.job} stopped on its input: ${first.message}${others}.`, hint: 'Start a new run to use the files as they are now.' };
  return {
    what: `The job of ${first.job} stopped on an error in memeval or the strategy, not the model's: ${first.message}${others}.`,
    hint: "Set MEMEVAL_DEBUG=1 to print the error's stack; `memeval run --resume RUN_DIR` runs the job again.",
  };
}

/** The probe answers the run owes: its jobs', as its run.json records them (the reports count the same). */
function workUnits(info: RunInfo): number {
  let n = 0;
  for (const owed of answersPerJob(info).values()) n += owed;
  return n;
}

/** Orders records the same way whatever order the work finished in, so a resumed run's reports equal an uninterrupted run's. */
function collect(jobs: PlannedJob[], results: JobResult[]): Pick<RunResult, 'turns' | 'probes' | 'summaries'> {
  const turns: TurnRecord[] = [];
  const probes: ProbeRecord[] = [];
  const summaries: SummaryRecord[] = [];
  results.forEach((res, i) => {
    const order = jobs[i].slot.probeOrder;
    const at = (p: ProbeRecord): number => order.get(p.probe) ?? -1;
    for (const t of res.turns) turns.push(t);
    for (const s of res.summaries) summaries.push(s);
    for (const p of [...res.probes].sort((a, b) => at(a) - at(b) || a.repeat - b.repeat)) probes.push(p);
  });
  return { turns, probes, summaries };
}

/** The `info` of a run directory's run.json: what resuming it needs. A missing or damaged run.json is bad input, located. */
export function resumableRun(resumeDir: string): RunInfo {
  if (!existsSync(join(resolve(resumeDir), RUN_FILE))) throw new UsageError(`${resumeDir}: not a run directory (no ${RUN_FILE})`);
  const info = loadRunInfo(resumeDir);
  // A merged run has no journal of its own: resumed, it would run every job again.
  if (info.mergedFrom) {
    const shards = info.mergedFrom.map((m) => m.runId).join(', ');
    throw new UsageError(`${resumeDir}: a merged run is not resumed; resume the shards that need it (${shards}), then merge them again`);
  }
  // A complete run without errors has its journal removed once run.json holds every record: there is nothing left to resume.
  if (info.status === 'complete' && !existsSync(join(resolve(resumeDir), JOURNAL_FILE))) {
    throw new UsageError(`${resumeDir}: the run is complete, nothing to resume (memeval report ${resumeDir} re-renders its reports)`);
  }
  return info;
}

/** Whether any record is one `--resume` re-attempts (the tests journaledJob, gradeSummaries and runProbes apply). */
function hasErrored(run: Pick<RunResult, 'probes' | 'summaries'>): boolean {
  return run.probes.some(isProbeError) || run.summaries.some((s) => summaryErrored(s) || gradeErrored(s));
}

/**
 * A complete run's journal only repeats run.json (which was written and forced
 * to disk): it is removed, after the directory entry of run.json is forced to
 * disk too, so a machine crash leaves one or the other. Where a directory
 * cannot be synced (some file systems refuse), the journal stays: a larger
 * run directory, never a run that cannot be resumed.
 */
function retireJournal(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    return;
  }
  rmSync(join(dir, JOURNAL_FILE), { force: true });
}

interface PreparedDir {
  dir: string;
  runId: string;
  /** Releases the run directory's lock. */
  release: () => void;
}

/**
 * A new run's directory appears with run.json inside (resumable from the
 * moment it exists); a resumed one is locked first, then cleared of what a
 * killed process left half-written.
 */
function prepareDir(
  config: SuiteConfig,
  opts: RunOptions,
  initial: (runId: string, dir: string) => RunInfo,
): PreparedDir & { info: RunInfo; previousRedactions?: RedactionCounts } {
  if (opts.resumeDir) {
    const dir = resolve(opts.resumeDir);
    const release = lockRunDir(dir);
    const previous = opts.resumeInfo ?? resumableRun(opts.resumeDir);
    removeStaleTemps(dir);
    const info = initial(previous.runId, dir);
    writeFileAtomic(join(dir, RUN_FILE), startingRunJson(info));
    return { dir, runId: previous.runId, release, info, previousRedactions: previous.redactions };
  }
  const runId = opts.shard ? `${newRunId(config)}-shard${opts.shard.index}of${opts.shard.count}` : newRunId(config);
  const dir = join(config.out, runId);
  mkdirSync(config.out, { recursive: true });
  removeStalePartials(config.out);
  const info = initial(runId, dir);
  return { dir, runId, release: createRunDir(dir, startingRunJson(info)), info };
}

/** What this process redacted; a resumed run keeps the larger count of its attempts (each one a lower bound on the distinct values). */
function redactionsOf(previous: RedactionCounts | undefined): RedactionCounts {
  const now = redactionCounts();
  return previous && previous.total > now.total ? previous : now;
}

/** run.json before any record is finished: a resumable run directory. */
function startingRunJson(info: RunInfo): string {
  return JSON.stringify({ info: redactDeep(info), turns: [], probes: [], summaries: [] }, null, 1);
}

/** run.json, one record per line, written piece by piece: a large run never builds it as one string. */
function writeRunJson(path: string, run: RunResult): void {
  writeChunksAtomic(path, runJsonChunks(run));
}

/** Models are built (keys, providers, base URLs checked) before any run directory exists: bad setup is bad input. */
function setUpGraders(config: SuiteConfig, strategies: StrategyConfig[], registry: StrategyRegistry, router?: CallRouter): Graders {
  try {
    return buildGraders(config, strategies, registry, router);
  } catch (error) {
    if (!(error instanceof ModelSetupError)) throw error;
    throw new InputError([fileProblem(config.file ?? 'memeval config', error.message)]);
  }
}

/** The user's Ctrl-C and the run's own stop (an unusable endpoint) as one signal. */
function stopSignal(user: AbortSignal | undefined): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  if (user?.aborted) controller.abort();
  user?.addEventListener('abort', () => controller.abort(), { once: true });
  return { signal: controller.signal, stop: () => controller.abort() };
}

/** How long a stopped run waits for the calls in flight before it writes what is finished and exits. */
export const STOP_GRACE_MS = 2000;

/**
 * Resolves when `work` does, or STOP_GRACE_MS after `stop` fires: a call in
 * flight (or a retry waiting out a Retry-After) must not hold a stopped run
 * for minutes. Work still running then is abandoned; what it finishes later
 * is still journaled, and resume redoes the rest.
 */
async function untilStopped(work: Promise<unknown>, stop: AbortSignal | undefined): Promise<'done' | 'abandoned'> {
  if (!stop) return work.then(() => 'done' as const);
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'abandoned'>((resolve) => {
    const start = () => {
      timer = setTimeout(() => resolve('abandoned'), STOP_GRACE_MS);
    };
    if (stop.aborted) start();
    else stop.addEventListener('abort', start, { once: true });
  });
  try {
    return await Promise.race([work.then(() => 'done' as const), grace]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runSuite(given: RunOptions): Promise<RunOutcome> {
  // Read once, up front: what a resumed run was (a shard, say) decides what it runs.
  const opts = given.resumeDir && !given.resumeInfo ? { ...given, resumeInfo: resumableRun(given.resumeDir) } : given;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const batchSettings = opts.batch ?? (opts.resumeInfo?.batch ? {} : undefined);
  const batch = batchSettings && typeof opts.config.cache === 'string' ? new BatchRun(opts.config.cache, batchSettings, log) : undefined;
  const prepared = await setUp(opts, batchSettings && { run: batch });
  try {
    if (batch) {
      batch.open(prepared.dir);
      const rounds = await batchRounds({ ...prepared, opts, log }, batch);
      if (rounds.ended !== 'done') return await batchStopped(prepared, batch, rounds);
      // The run made for real: every call is answered from the batches' results, counted afresh.
      batch.endRounds();
      prepared.graders = setUpGraders(opts.config, prepared.strategies, prepared.registry, batch);
      prepared.info.batch = { ...batch.counts };
    }
    return await runInDir({ ...prepared, opts, log });
  } finally {
    prepared.release();
  }
}

/** Where a `--batch` run replays itself each round; removed after the round. */
const BATCH_ROUND_DIR = 'batch-round';

/**
 * A `--batch` run's rounds: replay the run against what is known, submit the
 * calls found whose inputs are all known, wait for them, until a round finds
 * nothing to send. Each round's records are thrown away; the results are in
 * the cache for the run made after.
 */
async function batchRounds(p: Prepared, batch: BatchRun): Promise<BatchRounds> {
  const signal = p.opts.signal ?? new AbortController().signal;
  const scratch = join(p.dir, BATCH_ROUND_DIR);
  for (let round = 1; ; round++) {
    rmSync(scratch, { recursive: true, force: true });
    mkdirSync(scratch);
    // A resumed run's finished work is in its journal, not only in the cache (which may be gone):
    // the round reads a copy of it, so no journaled answer is collected, and paid for, again.
    for (const file of [JOURNAL_FILE, CONTEXTS_FILE]) if (existsSync(join(p.dir, file))) copyFileSync(join(p.dir, file), join(scratch, file));
    const pass = await runInDir({ ...p, dir: scratch, info: structuredClone(p.info), log: () => undefined, collecting: true, chain: batch.chain });
    rmSync(scratch, { recursive: true, force: true });
    if (pass.interrupted || signal.aborted) return { ended: 'interrupted' };
    if (!batch.outstanding) return { ended: 'done' };
    try {
      await batch.submit(signal);
      p.log(`batch round ${round}: waiting for ${batch.counts.batches} batch(es), ${batch.counts.requests} calls so far`);
      await batch.waitAll(signal);
    } catch (error) {
      if (signal.aborted) return { ended: 'interrupted' };
      // A batch that cannot be submitted or read (a rejected key, nothing listening), or a result that cannot be
      // stored (a full disk), stops the run, and run.json says why; --resume goes on from batches.jsonl.
      const why = error instanceof Error ? error.message : String(error);
      return { ended: 'failed', failure: `The run stopped early: ${redact(why)}` };
    }
  }
}

type BatchRounds = { ended: 'done' } | { ended: 'interrupted' } | { ended: 'failed'; failure: string };

/**
 * A `--batch` run stopped before the run was made: run.json says why, and
 * batches.jsonl names the batches a resume waits on. A failed one gets its
 * reports too, marked FAILED at the top, as any failed run does.
 */
async function batchStopped(p: Omit<Prepared, 'opts' | 'log'>, batch: BatchRun, rounds: Exclude<BatchRounds, { ended: 'done' }>): Promise<RunOutcome> {
  const info: RunInfo = { ...p.info, status: rounds.ended, batch: { ...batch.counts }, finishedAt: new Date().toISOString() };
  if (rounds.ended === 'failed') info.failure = rounds.failure;
  writeFileAtomic(join(p.dir, RUN_FILE), startingRunJson(info));
  const run: RunResult = { info, turns: [], probes: [], summaries: [] };
  if (rounds.ended === 'failed') await writeReports(run, p.dir);
  return { dir: p.dir, run, interrupted: rounds.ended === 'interrupted' };
}

/**
 * Up to this many characters of transcript text (the first files of the suite), a run keeps
 * the transcripts it checked for their jobs; past it, only a header (all but
 * the turns), and the first job of a transcript reads it again. A suite held
 * whole grows with the suite (62 MB of live heap for 3,000 short transcripts,
 * 39 MB of YAML), for the length of the run. Reading a small suite twice cost
 * time all the same: checking a short transcript, cold, costs about what its
 * requests' own work does, and 400 requests of 40 transcripts at concurrency
 * 32 took 1.28× a bare client's time read twice and 1.22–1.25× kept (npm run
 * bench -- --only online). Every transcript is let go when its jobs are done.
 */
const KEEP_CHECKED_CHARS = 4 * 1024 * 1024;

/**
 * Reads and checks the suite, builds its models and its run directory. Of each
 * transcript past KEEP_CHECKED_CHARS only a header is kept; its first job
 * reads it again, refusing a file changed since the check.
 */
async function setUp(opts: RunOptions, batch?: { run: BatchRun | undefined }): Promise<Omit<Prepared, 'opts' | 'log'> & { release: () => void }> {
  const { config } = opts;
  const limits = config.limits ?? DEFAULT_LIMITS;
  let keptChars = 0;
  const entries = await readSuite(config.datasets, config.baseDir, limits, (t, file) => {
    const source = transcriptSource(file);
    keptChars += file.text.length;
    // A copy whose strings are its own, as a transcript read again is: records keep some of them to the end.
    const checked = keptChars <= (opts.keepCheckedChars ?? KEEP_CHECKED_CHARS) ? structuredClone(t) : undefined;
    // Its digest goes into run.json: shards merged, or a run resumed, must have read the same text.
    return { header: { ...structuredClone(transcriptHeader(t)), sha256: source.sha256 }, source, checked };
  });
  const transcripts = entries.map((e) => e.header);
  if (opts.resumeInfo) refuseChangedTranscripts(transcripts, opts.resumeInfo);
  const strategies = selectStrategies(config, opts.only);
  const registry = opts.registry ?? STRATEGIES;
  if (batch) {
    const problem = batchProblem(config, modelSpecs(config, strategies, registry));
    if (problem || !batch.run) throw new UsageError(problem ?? '--batch needs the call cache');
  }
  const graders = setUpGraders(config, strategies, registry, batch?.run);
  // Counted per run: what this run's files show as [REDACTED].
  resetRedactionCount();
  const shard = shardOf(opts, strategies, transcripts, config.repeat);
  // A batch run says so from the start: resuming it goes on in batch mode.
  const batchInfo = batch && { batch: { requests: 0, batches: 0, failedLines: 0, ...opts.resumeInfo?.batch } };
  const dir = prepareDir(config, opts, (id, at) => ({ ...runInfo(id, at, config, strategies, transcripts, graders), ...(shard ? { shard } : {}), ...batchInfo }));
  const slots = entries.map((e, i) => new TranscriptSlot(e.header, e.source, limits, i, e.checked));
  return { ...dir, slots, strategies, registry, graders, shardJobs: shard && new Set(shard.jobs) };
}

interface Prepared {
  opts: RunOptions;
  log: (line: string) => void;
  slots: TranscriptSlot[];
  strategies: StrategyConfig[];
  registry: StrategyRegistry;
  graders: Graders;
  dir: string;
  runId: string;
  info: RunInfo;
  previousRedactions?: RedactionCounts;
  /** A shard's jobs; undefined for a whole run. */
  shardJobs?: ReadonlySet<string>;
  /** A `--batch` round: the run is replayed to find the calls to submit; nothing is written but its journal. */
  collecting?: boolean;
  /** A `--batch` round's call chains (BatchRun.chain). */
  chain?: CallChains;
}

async function runInDir(p: Prepared): Promise<RunOutcome> {
  const { opts, log, slots, strategies, registry, graders, dir, info } = p;
  const { config } = opts;
  const journalPath = join(dir, JOURNAL_FILE);
  const contexts = ContextStore.inRunDir(dir);
  const done = readBackRun(journalPath, contexts);
  const journal = new Journal(journalPath);
  journal.open();
  const jobs = planJobs(slots, strategies, p.shardJobs);
  const errors = Object.fromEntries(ERROR_STAGES.map((stage) => [stage, 0])) as Record<ErrorStage, number>;
  const progress = new Progress(workUnits(info), () => ({ ...graders.counts(), stages: errors }), p.collecting ? NO_PROGRESS : undefined);
  const part = info.shard ? `, shard ${info.shard.index}/${info.shard.count} (${jobs.length} jobs)` : '';
  log(`memeval: ${slots.length} transcripts × ${strategies.length} strategies${part}, model ${config.model}, judge ${config.judge} → ${dir}`);
  if (done.probes.size) log(`resuming: ${done.probes.size} probe answers already journaled`);
  if (done.unreadable.length) {
    log(`resuming: the journaled replay of ${done.unreadable.length} job(s) did not read back; replaying, and making their summaries, again: ${done.unreadable.join(', ')}`);
  }

  const { signal, stop } = stopSignal(opts.signal);
  // Once stopped, a call still queued for a slot must not go out: its answer would be thrown away unjournaled.
  if (signal.aborted) graders.stopCalls();
  else signal.addEventListener('abort', () => graders.stopCalls(), { once: true });
  const ctx: RunContext = { config, graders, registry, counter: graders.counter, journal, contexts, done, progress, signal, stop, errors, chain: p.chain ?? UNCHAINED, crashes: [] };
  const results: (JobResult | undefined)[] = new Array(jobs.length);
  await graders.ready();
  const starting = { concurrency: Math.max(2, config.concurrency), signal, onceCallBegins: graders.onceModelCallBegins };
  const work = startJobs(scheduleOrder(jobs), starting, (i) => runPlannedJob(jobs[i], ctx).then((result) => void (results[i] = result)));
  let ended: 'done' | 'abandoned' = 'abandoned';
  try {
    ended = await untilStopped(work, opts.signal);
  } finally {
    progress.finish();
    // Abandoned work may still finish and journal an answer: the journal stays open for it until the process exits.
    if (ended === 'done') {
      contexts.close();
      journal.close();
    } else {
      contexts.sync();
      journal.sync();
      work.catch(() => undefined);
    }
  }
  const fatal = graders.fatal();
  const finished = results.map((r) => r ?? { turns: [], summaries: [], probes: [], complete: false });
  const interrupted = !fatal && (Boolean(opts.signal?.aborted) || finished.some((r) => !r.complete));
  const stats = graders.counts();
  info.calls = { made: stats.calls, cacheHits: stats.cacheHits, dedupHits: stats.dedupHits, errors: stats.errors };
  const records = collect(jobs, finished);
  const run: RunResult = { info, ...records };
  if (p.collecting) return { dir, run, interrupted };
  const errorsByStage = stageErrors(run);
  info.errors = errorsByStage;
  if (interrupted) info.status = 'interrupted';
  else {
    const unattempted = workUnits(info) - records.probes.length;
    const verdict = judgeRun(errorsByStage, config.max_errors ?? { kind: 'count', value: 0 }, fatal, unattempted, crashText(ctx.crashes));
    info.status = verdict.status;
    if (verdict.failure) info.failure = verdict.failure;
  }
  info.finishedAt = new Date().toISOString();
  run.info = redactDeep(info);
  run.info.redactions = redactionsOf(p.previousRedactions);
  writeRunJson(join(dir, RUN_FILE), run);
  // An incomplete or failed run still gets every report, marked as such at the top.
  run.contexts = readContexts(dir);
  if (!interrupted) await writeReports(run, dir);
  // Only once the reports are written (a run killed while writing them is resumed to finish them),
  // and only for a run with nothing left to redo: --resume re-attempts errored records from the journal.
  if (run.info.status === 'complete' && !hasErrored(run)) retireJournal(dir);
  return { dir, run, interrupted };
}
