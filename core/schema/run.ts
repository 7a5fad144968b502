// What a run records (run.json): the records of every strategy × transcript
// and the information to reproduce and label the run. core/types.ts exports
// the types; reports/load.ts checks a run.json with these schemas, so a
// damaged file is reported as bad input, not met as a TypeError in a report.
// Fields a run made by an older version lacks get a default here; fields
// this version does not know are left out of what is read.
import { z } from 'zod';

/**
 * A measured, possibly fractional number. JSON writes NaN as null, so null
 * reads back as NaN instead of failing a run that was written faithfully.
 */
const measured = z.union([z.number(), z.null()]).transform((value) => value ?? Number.NaN);
const names = z.array(z.string());

/** `tool`: the expected next action is a tool call, or answering without one (docs/transcript-format.md). */
export const PROBE_KINDS = ['recall', 'update', 'temporal', 'multi-hop', 'abstention', 'tool'] as const;

/** The four places a run can fail to measure; every report counts errors per stage. */
export const ERROR_STAGES = ['answer', 'answer-judge', 'summarizer', 'summary-judge'] as const;

/** Token usage as reported by a provider (or counted, for the offline model). */
export const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Input tokens the provider served from its prompt cache, when it reports them (`cached_tokens`). */
  cachedTokens: z.number().optional(),
});

/**
 * A field runs made before it existed lack. A turn table writes every column,
 * and a record without the field puts null in its cell: null reads as absent.
 */
function absentBefore<T extends z.ZodType>(schema: T) {
  return schema
    .nullable()
    .transform((value) => value ?? undefined)
    .optional();
}

/**
 * One record per strategy × transcript × turn. Which facts the context holds
 * is recorded as counts and as what changed since the job's previous turn:
 * the full lists at every turn grow with turns × facts (most of a long
 * benchmark run's records), while the changes add up to the lists at any turn.
 */
export const turnRecordSchema = z.object({
  strategy: z.string(),
  transcript: z.string(),
  turn: z.number(),
  /** Tokens the full history would cost at this turn (instructions + every item). */
  fullTokens: z.number(),
  /** Tokens of what the strategy would send at this turn. */
  contextTokens: z.number(),
  /**
   * The part of `contextTokens` an API reported rather than the local counter
   * counted: the span a server compacted into an item only it can read
   * (`openai-compaction`). 0 when every token was counted locally; absent in
   * runs made before the field existed (read as 0).
   */
  apiTokens: absentBefore(z.number()),
  items: z.number(),
  /** Facts stated by now that the context holds. */
  factsPresentCount: z.number(),
  /** Facts stated by now that the context lacks. */
  factsMissingCount: z.number(),
  /** Critical facts stated by now that the context lacks. */
  criticalMissingCount: z.number(),
  /**
   * Facts stated by now, inside a span the server compacted into an opaque item:
   * whether the context still holds them cannot be read, so they are counted
   * neither present nor missing. Absent in runs made before the field existed (read as 0).
   */
  factsOpaqueCount: absentBefore(z.number()),
  /** Facts missing now that were not missing at the previous turn (dropped, or stated but never kept). */
  factsLost: names,
  /** Facts present now that were missing at the previous turn. */
  factsRegained: names,
  /** The critical facts among `factsLost`. */
  criticalLost: names,
  /** Summarisation events that happened while this turn was added. */
  summaries: z.number(),
  /**
   * Tokens of this turn's request a provider's prompt cache can serve: the prefix
   * it shares with the previous turn's request, under the provider's rule
   * (core/prompt-cache.ts). Absent in runs recorded before it was measured.
   */
  cacheableTokens: absentBefore(z.number()),
  /** The request dropped or rewrote part of what the previous one left cached (core/prompt-cache.ts). */
  cacheBreak: absentBefore(z.boolean()),
});

/** A turn record as runs before the counts wrote it: every present, missing and critical missing fact at every turn. */
const listedTurnRecordSchema = turnRecordSchema
  .omit({ factsPresentCount: true, factsMissingCount: true, criticalMissingCount: true, factsOpaqueCount: true, factsLost: true, factsRegained: true, criticalLost: true })
  .extend({ factsPresent: names, factsMissing: names, criticalDropped: names });

/** A turn record of either shape; `migrateTurns` turns a run's records into the current one. */
export const turnRecordInputSchema = z.union([turnRecordSchema, listedTurnRecordSchema]);

type TurnRecordOut = z.output<typeof turnRecordSchema>;
type TurnRecordIn = z.output<typeof turnRecordInputSchema>;

/**
 * A job's records as one table: strategy and transcript once, then one row of
 * values per record in the order `columns` names. Keys repeated in every
 * record were most of a long run's run.json (turn records, then probe
 * records); a row is a fraction of it. A row reads back as the record it was
 * made from (checked as one).
 */
export const jobTableSchema = z
  .object({
    strategy: z.string(),
    transcript: z.string(),
    columns: z.array(z.string()),
    rows: z.array(z.array(z.unknown())),
  })
  .superRefine((table, ctx) => {
    // A column named twice would let one cell overwrite the other, and `__proto__` would set a row's prototype.
    table.columns.forEach((column, i) => {
      if (column === '__proto__' || table.columns.indexOf(column) !== i) ctx.addIssue({ code: 'custom', path: ['columns', i], message: column === '__proto__' ? 'names "__proto__", which is no field' : `names "${column}" twice` });
    });
    // A cell too many or too few would shift or drop a value without a word.
    table.rows.forEach((row, i) => {
      if (row.length !== table.columns.length) ctx.addIssue({ code: 'custom', path: ['rows', i], message: `has ${row.length} cells for ${table.columns.length} columns` });
    });
  });

export type JobTable = z.output<typeof jobTableSchema>;

/** An entry of a records section that is a table (it has `columns`), not a record. */
function isJobTable(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && 'columns' in entry;
}

/** A table row that is not the record it stands for: its index, and the record's issues. */
export type RowProblem = (row: number, issues: readonly z.core.$ZodIssue[]) => void;

/** A cell as the record's value; undefined leaves the field out of the record. */
type CellReader = (column: string, cell: unknown) => unknown;

const asWritten: CellReader = (_column, cell) => cell;

/** A table's rows as records checked by `schema`; each row that is not one goes to `problem` instead. */
function tableRecords<S extends z.ZodType>(table: JobTable, schema: S, problem: RowProblem, readCell: CellReader = asWritten): z.output<S>[] {
  const out: z.output<S>[] = [];
  table.rows.forEach((row, r) => {
    const record: Record<string, unknown> = { strategy: table.strategy, transcript: table.transcript };
    table.columns.forEach((column, i) => {
      const value = i < row.length ? readCell(column, row[i]) : undefined;
      if (value !== undefined) record[column] = value;
    });
    const parsed = schema.safeParse(record);
    if (parsed.success) out.push(parsed.data);
    else problem(r, parsed.error.issues);
  });
  return out;
}

/** Records in runs of consecutive records of the same strategy and transcript, at most `maxRows` each: the rows of one table. */
function* jobRuns<R extends { strategy: string; transcript: string }>(records: Iterable<R>, maxRows: number): Generator<R[]> {
  let run: R[] = [];
  for (const record of records) {
    if (run.length > 0 && (run.length >= maxRows || run[0].strategy !== record.strategy || run[0].transcript !== record.transcript)) {
      yield run;
      run = [];
    }
    run.push(record);
  }
  if (run.length > 0) yield run;
}

/** How a table's rows become checked records (tableTurns, tableProbes). */
export type TableReader<T> = (table: JobTable, problem: RowProblem) => T[];

/**
 * One entry of a section of records, as run.json and the journal hold them,
 * as records: a table's rows, each checked as the record it stands for, or the
 * record it is (files written before tables). An entry is read as a table when
 * `expand` is given and it has `columns`, else as a record, so a bad one is
 * named at its field (a union of the two would only say that neither fits).
 * Problems go to `report` with their path under the entry.
 */
export function entryRecords<S extends z.ZodType>(
  entry: unknown,
  recordSchema: S,
  expand: TableReader<z.output<S>> | undefined,
  report: (at: PropertyKey[], issues: readonly z.core.$ZodIssue[]) => void,
): z.output<S>[] {
  if (!expand || !isJobTable(entry)) {
    const parsed = recordSchema.safeParse(entry);
    if (parsed.success) return [parsed.data];
    report([], parsed.error.issues);
    return [];
  }
  const table = jobTableSchema.safeParse(entry);
  if (table.success) return expand(table.data, (r, issues) => report(['rows', r], issues));
  report([], table.error.issues);
  return [];
}

/** A section of records (tables, or a record per entry) as records, each checked. */
function entriesSchema<S extends z.ZodType>(recordSchema: S, expand: TableReader<z.output<S>>) {
  return z.array(z.unknown()).transform((entries, ctx) =>
    entries.flatMap((entry, index) =>
      entryRecords(entry, recordSchema, expand, (at, issues) => issues.forEach((issue) => ctx.addIssue({ ...issue, path: [index, ...at, ...issue.path] } as never))),
    ),
  );
}

/** The columns of a turn table, in the order a run writes them (strategy and transcript are the table's). */
export const TURN_COLUMNS = [
  'turn', 'fullTokens', 'contextTokens', 'apiTokens', 'items', 'factsPresentCount', 'factsMissingCount', 'criticalMissingCount',
  'factsOpaqueCount', 'factsLost', 'factsRegained', 'criticalLost', 'summaries', 'cacheableTokens', 'cacheBreak',
] as const;

/** True when A and B are the same set of keys. */
type SameKeys<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Every field of a turn record but the table's own two is a column: a field added to the record and
// not here would be dropped from every table, so this fails to compile until the two agree.
const columnsAreTheRecord: SameKeys<(typeof TURN_COLUMNS)[number], Exclude<keyof TurnRecordOut, 'strategy' | 'transcript'>> = true;
void columnsAreTheRecord;

/** Turn rows per table line at most: a job of any length stays far below the line reader's limit. */
const MAX_TURN_ROWS = 10_000;

/** Turn records as tables of every column, one per run of consecutive records of the same strategy and transcript. */
export function* turnTables(turns: Iterable<TurnRecordOut>): Generator<JobTable> {
  for (const run of jobRuns(turns, MAX_TURN_ROWS)) {
    // The columns added later are optional in a record (older runs lack them); a cell is never left empty.
    // A value a record does not have is written null: the columns added later read it as absent.
    yield { strategy: run[0].strategy, transcript: run[0].transcript, columns: [...TURN_COLUMNS], rows: run.map((t) => TURN_COLUMNS.map((c) => t[c] ?? null)) };
  }
}

/** A turn table's rows as checked records; each row that is not one goes to `problem` (its index and issues) instead. */
export function tableTurns(table: JobTable, problem: RowProblem): TurnRecordOut[] {
  return tableRecords(table, turnRecordSchema, problem);
}

export type TurnEntry = JobTable | TurnRecordIn;

/** Every turn entry (of run.json's `turns` section, or a journaled replay) as records: tables (turnTables), or records of either shape (older files). */
export const turnEntriesSchema = entriesSchema(turnRecordInputSchema, tableTurns);

/** The fact fields of a turn record. */
export type TurnFacts = Pick<
  TurnRecordOut,
  'factsPresentCount' | 'factsMissingCount' | 'criticalMissingCount' | 'factsOpaqueCount' | 'factsLost' | 'factsRegained' | 'criticalLost'
>;

/** The ids of the facts due at a turn, as held or not by the context. */
export interface FactsAtTurn {
  present: readonly string[];
  missing: readonly string[];
  /** The critical facts among `missing`. */
  criticalMissing: readonly string[];
  /** Facts in a span compacted into an opaque item: neither present nor missing. */
  opaque?: readonly string[];
}

/**
 * The one empty list of fact changes, frozen: most turns lose and regain
 * nothing, and a run holds every turn record until its reports are written
 * (an empty array each was a tenth of a large run's live heap).
 */
const NO_CHANGE: string[] = Object.freeze([]) as unknown as string[];

/** `ids`, or the one frozen empty list when there are none. */
export function orNone(ids: string[]): string[] {
  return ids.length === 0 ? NO_CHANGE : ids;
}

/**
 * One job's facts turn after turn, as its turn records hold them, from every
 * fact's standing at each turn: migrateTurns rebuilds records of the listed
 * shape with it. The replay keeps the same rule from the changes of each turn
 * (harness/run/replay.ts FactTracker); a test holds the two equal.
 */
export class FactChanges {
  /** Facts missing at the job's previous turn. */
  private missing: ReadonlySet<string> = new Set();

  /** This turn's fact fields; call it for every turn of the job, in order. */
  turn(now: FactsAtTurn): TurnFacts {
    const before = this.missing;
    this.missing = new Set(now.missing);
    const critical = new Set(now.criticalMissing);
    const lost = now.missing.filter((id) => !before.has(id));
    return {
      factsPresentCount: now.present.length,
      factsMissingCount: now.missing.length,
      criticalMissingCount: now.criticalMissing.length,
      factsOpaqueCount: now.opaque?.length ?? 0,
      factsLost: orNone(lost),
      factsRegained: orNone(now.present.filter((id) => before.has(id))),
      criticalLost: orNone(lost.filter((id) => critical.has(id))),
    };
  }
}

/**
 * Records of the listed shape become counts and changes, each compared with
 * the previous turn of its strategy × transcript, in file order (a run writes
 * each job's turns in order).
 */
export function migrateTurns(turns: TurnRecordIn[]): TurnRecordOut[] {
  const jobs = new Map<string, FactChanges>();
  return turns.map((t) => {
    if (!('factsPresent' in t)) return t;
    const { factsPresent, factsMissing, criticalDropped, ...rest } = t;
    const key = `${t.strategy}\u0000${t.transcript}`;
    let job = jobs.get(key);
    if (!job) {
      job = new FactChanges();
      jobs.set(key, job);
    }
    // Those runs counted every token locally.
    return { ...rest, apiTokens: rest.apiTokens ?? 0, ...job.turn({ present: factsPresent, missing: factsMissing, criticalMissing: criticalDropped }) };
  });
}

/** Deterministic checks every summary gets (no model needed). */
export const summaryChecksSchema = z.object({
  /** Share (0–1) of the facts stated in the covered turns that the summary keeps; 1 when none were due. */
  factCoverage: measured,
  factsKept: names,
  factsMissing: names,
  /** Identifiers, numbers or codes in the summary that never appear in the source. */
  unsupported: names,
  words: z.number(),
  wordLimit: z.number(),
  overLimit: z.boolean(),
  headingsMissing: names,
  /** Superseded facts stated without their update. */
  staleFacts: names,
});

/** One verdict of the summary judge (LLM or the documented offline rule). */
export const summaryJudgementSchema = z.object({
  model: z.string(),
  /** 0–1: share of the fixed yes/no coverage questions answered yes. */
  coverage: measured,
  /** 0–1: share of summary claims supported by the source. */
  faithfulness: measured,
  /** 0–1 */
  temporal: measured,
  /** 0–1 */
  format: measured,
  /** 1–5 */
  overall: measured,
  /** min(coverage, faithfulness), as DeepEval's summarization metric. */
  score: measured,
  invented: names,
  reasons: z.record(z.string(), z.string()),
  /** Set when the judge failed; the scores are then NaN (null in run.json) and count neither way. */
  error: z.string().optional(),
});

/** How this summary differs from the previous one of the same strategy and transcript. */
export const summaryDriftSchema = z.object({
  lost: names,
  changed: names,
  /** An updated fact that went back to its superseded value (context poisoning). */
  reverted: names,
});

export const summaryGradesSchema = z.object({
  checks: summaryChecksSchema,
  judge: summaryJudgementSchema.optional(),
  drift: summaryDriftSchema.optional(),
});

/** One record per summary a strategy produced. */
/** What a summarizer was sent. */
export const summaryRequestSchema = z.object({ system: z.string(), user: z.string() });

export const summaryRecordSchema = z.object({
  strategy: z.string(),
  transcript: z.string(),
  /** The turn whose addition triggered the summary. */
  turn: z.number(),
  /** 1-based inclusive range of real turns the summary replaced. */
  coveredTurns: z.tuple([z.number(), z.number()]),
  /** Which summary of this strategy/transcript this is (1-based). */
  index: z.number(),
  summarizer: z.string(),
  promptPath: z.string().optional(),
  promptHash: z.string().optional(),
  /**
   * Exact request the summarizer sent (system prompt and user content), while
   * the run grades the summary. Stored by `requestRef` in contexts.jsonl (a
   * summary's request repeats most lines of the one before); runs made before
   * that carry it here.
   */
  request: summaryRequestSchema.optional(),
  requestRef: z.string().optional(),
  text: z.string(),
  usage: usageSchema,
  durationMs: measured,
  /** USD of the call at the run's price table, for a strategy that prices its own calls (server compaction); absent: not priced. */
  cost: z.number().optional(),
  /**
   * A server compaction (`openai-compaction`): the server returned an item only it
   * can read, so `text` is empty and the record is never graded; it stands for the
   * call's tokens, time and cost.
   */
  opaque: z.boolean().optional(),
  error: z.string().optional(),
  /** Filled by summary graders. */
  grades: summaryGradesSchema.optional(),
});

/**
 * Why a probe was answered wrongly (graders/attribution.ts). `unknown`: the probe
 * names neither facts nor evidence turns, so nothing says whether the context held
 * what it needed. `opaque`: a needed fact lies in a span a server compacted into
 * an item only it can read (`openai-compaction`), so whether the context lost it
 * is not known.
 */
export const ATTRIBUTIONS = ['trimmed', 'lost-in-summary', 'present-but-missed', 'abstain-fail', 'error', 'opaque', 'unknown'] as const;

/** A tool call a model made: the tool's name and its arguments as the model wrote them (a JSON string). */
export const toolCallSchema = z.object({ name: z.string(), arguments: z.string() });

/**
 * How a `kind: tool` probe's answer was graded (graders/tool-calls.ts): the call
 * graded is the first call to the expected tool, else the first call.
 */
export const toolGradeSchema = z.object({
  /** The tool the probe expects, or null when the right move is to answer without a call. */
  expected: z.string().nullable(),
  /** The graded call's tool, or null when the model made no call. */
  called: z.string().nullable(),
  /** The expected tool was called (for a no-call probe: no tool was called). */
  rightTool: z.boolean(),
  /** Expected arguments the graded call matched, of `argsExpected` (0 of n for a wrong tool). */
  argsMatched: z.number(),
  argsExpected: z.number(),
  /** Right tool and every expected argument matched (for a no-call probe: no call). */
  exactCall: z.boolean(),
  /** Calls beyond the graded one (every call, for a no-call probe): the penalty column. */
  extraCalls: z.number(),
  /** Why arguments did not match, one line each (`host: expected "db-prod-7", got "db-prod-2"`). */
  mismatches: names,
});

/** One record per strategy × transcript × probe × repeat. */
export const probeRecordSchema = z.object({
  strategy: z.string(),
  transcript: z.string(),
  probe: z.string(),
  kind: z.enum(PROBE_KINDS),
  afterTurn: z.number(),
  repeat: z.number(),
  question: z.string(),
  reference: z.string(),
  contextTokens: z.number(),
  contextItems: z.number(),
  factsNeeded: names,
  factsPresent: names,
  factsMissing: names,
  /** Needed facts in a span a server compacted into an opaque item (neither present nor missing). */
  factsOpaque: names.optional(),
  /**
   * The turns (1-based) the probe's `meta` names as its evidence (LoCoMo dialogue ids,
   * LongMemEval evidence turns or answer sessions), resolved against the transcript;
   * attribution reads them when the probe names no facts. Absent when none resolve.
   */
  evidenceTurns: z.array(z.number()).optional(),
  /**
   * `answerable`: every fact the probe needs is present in the context that
   * was sent. True when the probe names facts and none is missing; for an
   * abstention probe (`kind: abstention`) that names no facts, true (nothing
   * is needed: the right answer is to say it was never given); for any other
   * probe that names no facts, null (unknown), and the probe is left out of
   * answerable-based rates. It is a property of the context, so it is known
   * even when the answer model errored. Beside `passed` it splits a miss into
   * "the strategy lost it" (false) and "the reader missed it" (true, not passed).
   * Runs recorded before the field existed read as null.
   */
  answerable: z.boolean().nullable().default(null),
  /** The model that answered (e.g. `offline`, `openai:gpt-4.1-mini`). */
  model: z.string().optional(),
  answer: z.string().optional(),
  exact: z.boolean().optional(),
  f1: measured.optional(),
  judge: z.object({ verdict: z.enum(['pass', 'fail', 'error']), reason: z.string(), model: z.string() }).optional(),
  passed: z.boolean().optional(),
  attribution: z.enum(ATTRIBUTIONS).optional(),
  usage: usageSchema.optional(),
  /** tiktoken count of the whole request (instructions, context, question), beside the API's `usage.inputTokens`. */
  countedInputTokens: z.number().optional(),
  cost: measured.optional(),
  /** Tokens of the request the prompt cache can serve: those of the probe's turn (the question itself is new). */
  cacheableTokens: z.number().optional(),
  /** `cost` with the cacheable tokens at the cached-input price (equal to `cost` when the price has none). */
  costCached: measured.optional(),
  latencyMs: measured.optional(),
  cached: z.boolean().optional(),
  error: z.string().optional(),
  /** Which call failed when `error` is set: the answering model, or the judge grading the answer. */
  errorStage: z.enum(['answer', 'judge']).optional(),
  /** The exact context sent with the question (instructions and messages as text): the copy runs recorded on failed probes before contexts were stored once each. */
  context: z.array(z.object({ role: z.string(), text: z.string() })).optional(),
  /** The exact context sent with the question, by reference: its messages are in the run directory's contexts.jsonl (core/contexts.ts). */
  contextRef: z.string().optional(),
  /** The tool calls the answer made (a model offered the transcript's `tools:` may call one instead of answering). */
  toolCalls: z.array(toolCallSchema).optional(),
  /** A `kind: tool` probe's grade: right tool, argument accuracy, exact call, extra calls. */
  tool: toolGradeSchema.optional(),
  /**
   * Calls in the answer that repeat a call already made in the conversation up
   * to the probe (same tool, same arguments after normalisation): work the
   * agent did again because its context no longer showed it, or ignored it.
   * The call a tool probe expects is never counted.
   */
  repeatedCalls: z.number().optional(),
  /** The answer asks the user for a value the user already gave (a re-ask) instead of using it. */
  reask: z.boolean().optional(),
  /** The probe's `meta:` as the transcript gives it (an importer's category, question type, evidence), for grouping and official scorers. */
  meta: z.record(z.string(), z.unknown()).optional(),
});

type ProbeRecordOut = z.output<typeof probeRecordSchema>;

/**
 * The probe fields that can be NaN: the measured ones, which read a null (what
 * JSON writes for NaN) as NaN. In a table a null cell is an absent field, so
 * they write NaN as the string "NaN" instead.
 */
export const PROBE_NAN_FIELDS = ['f1', 'cost', 'costCached', 'latencyMs'] as const satisfies readonly (keyof ProbeRecordOut)[];

const NAN_FIELDS: ReadonlySet<string> = new Set(PROBE_NAN_FIELDS);
const NAN_CELL = 'NaN';

/** Probe rows per table line at most: a row is about a kilobyte, so a table line stays near a megabyte. */
const MAX_PROBE_ROWS = 1_000;

/** The fields some record has a value for (not undefined or null), in the order they first appear; strategy and transcript are the table's. */
function presentFields(records: readonly object[]): string[] {
  const fields = new Set<string>();
  for (const record of records) {
    for (const [field, value] of Object.entries(record)) if (value !== undefined && value !== null && field !== 'strategy' && field !== 'transcript') fields.add(field);
  }
  return [...fields];
}

/** A probe field's value as a cell: null for an absent one; NaN (and ±Infinity, which JSON also writes as null and the field read back as NaN) as "NaN". */
function probeCell(field: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return typeof value === 'number' && !Number.isFinite(value) && NAN_FIELDS.has(field) ? NAN_CELL : value;
}

/** A null cell is an absent field; "NaN" in a field that can be NaN reads as the null those fields read as NaN. */
const readProbeCell: CellReader = (column, cell) => (cell === null ? undefined : cell === NAN_CELL && NAN_FIELDS.has(column) ? null : cell);

/**
 * Probe records as tables, one per run of consecutive records of the same
 * strategy and transcript (at most MAX_PROBE_ROWS rows): the columns are the
 * fields the table's records have, and a null cell is a field its record lacks.
 */
export function* probeTables(probes: Iterable<ProbeRecordOut>): Generator<JobTable> {
  for (const run of jobRuns(probes, MAX_PROBE_ROWS)) {
    const columns = presentFields(run);
    yield { strategy: run[0].strategy, transcript: run[0].transcript, columns, rows: run.map((p) => columns.map((c) => probeCell(c, (p as Record<string, unknown>)[c]))) };
  }
}

/** A probe table's rows as checked records; each row that is not one goes to `problem` (its index and issues) instead. */
export function tableProbes(table: JobTable, problem: RowProblem): ProbeRecordOut[] {
  return tableRecords(table, probeRecordSchema, problem, readProbeCell);
}

/** Every probe entry of run.json's `probes` section as records: tables (probeTables), or a record per entry (older runs). */
export const probeEntriesSchema = entriesSchema(probeRecordSchema, tableProbes);

/** Errors of one stage: how many, out of how many attempts, and the first message as the server gave it. */
export const stageErrorsSchema = z.object({
  stage: z.enum(ERROR_STAGES),
  errors: z.number(),
  attempted: z.number(),
  firstError: z.string().optional(),
});

/** How probes reach the model: directly, or through the @openai/agents runner. */
export const AGENTS = ['direct', 'runner'] as const;

const agent = z.enum(AGENTS);

/**
 * Everything that makes a strategy's numbers what they are. Two runs whose
 * fingerprints differ for a strategy id are not measuring the same thing,
 * and the diff says so field by field.
 */
export const strategyFingerprintSchema = z.object({
  use: z.string(),
  /** Resolved options (defaults filled in), summarizer block included. */
  options: z.record(z.string(), z.unknown()),
  /** Summarizer model spec, for strategies that summarise. */
  summarizer: z.string().optional(),
  /** Summary prompt: path relative to the config, sha256, and the text (so a diff can show the change). */
  prompt: z.object({ path: z.string(), hash: z.string(), text: z.string() }).optional(),
  /** The model that answered probes, the judge, and where they were served from (public URL, never a key). */
  answerModel: z.string(),
  judge: z.string(),
  endpoint: z.string().optional(),
  agent,
});

/**
 * The sweep a strategy is one point of (docs/config-format.md, "Sweeps"): the
 * entry's own id, and the value of each swept option in the order the
 * strategy declares its options; the first is the x axis of the sweep's curves.
 */
export const sweepMembershipSchema = z.object({
  group: z.string(),
  options: z.record(z.string(), z.number()),
});

export type SweepMembership = z.output<typeof sweepMembershipSchema>;

/** A configured strategy as it appears in reports. */
export const strategyInfoSchema = z.object({
  id: z.string(),
  use: z.string(),
  options: z.record(z.string(), z.unknown()),
  /** Set on a point of a sweep, so `memeval report` can draw the sweep's curve from run.json alone. */
  sweep: sweepMembershipSchema.optional(),
  /** Absent in runs made before fingerprints were recorded. */
  fingerprint: strategyFingerprintSchema.optional(),
});

/** Where a run's numbers came from. No key, no absolute local path. */
export const provenanceSchema = z.object({
  /** Model spec → public base URL it was called at (`offline` has none). */
  endpoints: z.record(z.string(), z.string()),
  answerModel: z.string(),
  judge: z.string(),
  summarizers: names,
  agent,
  memevalVersion: z.string(),
  gitSha: z.string().optional(),
});

/** A share with its 95% Wilson interval: `count` of `n` (rate and ci null when n is 0). */
export const rateSchema = z.object({
  n: z.number(),
  count: z.number(),
  rate: z.number().nullable(),
  ci: z.tuple([z.number(), z.number()]).nullable(),
});

/** How often the answer judge passed wrong answers and failed right ones on the labelled answer set. */
const answerJudgeCalibrationSchema = z.object({
  createdAt: z.string(),
  items: z.number(),
  falseAccept: rateSchema,
  falseReject: rateSchema,
  /** Per label (correct, stale, wrong-on-topic, …): the error that label measures and its rate. */
  perLabel: z.array(rateSchema.extend({ label: z.string(), error: z.enum(['false-accept', 'false-reject']) })),
});

export const judgeCalibrationSchema = z.object({
  createdAt: z.string(),
  items: z.number(),
  /** Per criterion: agreement with the human labels and Cohen's kappa with its 95% CI. */
  criteria: z.array(
    z.object({
      criterion: z.string(),
      accuracy: z.number().nullable(),
      kappa: z.number().nullable(),
      ci: z.tuple([z.number(), z.number()]).nullable(),
    }),
  ),
  /** The answer judge's calibration; absent when none was on record (and in runs recorded before it was kept). */
  answers: answerJudgeCalibrationSchema.optional(),
});

/** One prompt a model is sent, as recorded in a run's protocol manifest. */
export const protocolPromptSchema = z.object({
  /** The system prompt as sent. */
  system: z.string().optional(),
  /** The user message, with `{placeholders}` where a probe's or summary's own text goes. */
  user: z.string(),
  /** Reply format, temperature and token limit, when the call sets them. */
  settings: z.record(z.string(), z.unknown()).optional(),
});

/** A judge as the manifest records it: an LLM with its prompts, or a fixed rule. */
export const protocolJudgeSchema = z.object({
  model: z.string(),
  /** `llm-answer-judge`, `offline-answer-rule`, `llm-summary-judge`, `offline-summary-rule`. */
  name: z.string(),
  /** The requests an LLM judge sends (empty for a rule). */
  prompts: z.array(protocolPromptSchema),
  /** For a rule: what it is, in words (the rule is the protocol). */
  rule: z.string().optional(),
  /** sha256 of name, prompts and rule: two runs with the same hash graded the same way. */
  sha256: z.string(),
});

/** What one imported benchmark's transcripts say about how they were imported. */
export const protocolDatasetSchema = z.object({
  /** `locomo` or `longmemeval` (the importers' `meta.source`). */
  source: z.string(),
  transcripts: z.number(),
  probes: z.number(),
  /** LoCoMo: category → its name and the probe kind it became, as the probes record them. */
  categories: z.record(z.string(), z.object({ name: z.string(), kind: z.string(), probes: z.number() })).optional(),
  /** LongMemEval: question type → probes. */
  questionTypes: z.record(z.string(), z.number()).optional(),
  /** LoCoMo categories of the benchmark no probe of the run has (excluded, or not drawn). */
  absentCategories: z.array(z.number()).optional(),
  /** Derived facts the importer left out as too generic to track (transcript `meta.generic_facts`); they count for no retention. */
  genericFacts: z.number().optional(),
  /** The importer's record of its own options (`meta.import`), when the transcripts carry it. */
  import: z.array(z.record(z.string(), z.unknown())).optional(),
});

/**
 * How a run's numbers were produced, beside which strategies produced them:
 * what the answering model was sent, how answers and summaries were judged,
 * which scorers the probes call for, and what the imported data was. Two runs
 * whose manifests differ are not measuring on the same scale (`memeval diff`
 * refuses them unless told otherwise). Absent in runs made before it existed.
 */
export const protocolSchema = z.object({
  /** Bumped when a field's meaning changes, so a diff never compares unlike manifests. */
  version: z.number(),
  answer: z.object({
    model: z.string(),
    agent,
    /** How the request is built, in words: memeval adds no instructions of its own. */
    request: z.string(),
    /** sha256 of `request`. */
    sha256: z.string(),
    /** Each distinct transcript system prompt (sha256) and the transcripts that send it; `none` for no system prompt. */
    systemPrompts: z.array(z.object({ sha256: z.string(), transcripts: names })),
  }),
  answerJudge: protocolJudgeSchema,
  summaryJudge: protocolJudgeSchema,
  /** The scorers the run's probes call for (memeval's rules always; official benchmark scorers when their probes are present). */
  scorers: names,
  datasets: z.array(protocolDatasetSchema),
});

/** Everything needed to reproduce and label a run. */
export const runInfoSchema = z.object({
  runId: z.string(),
  /**
   * `running` while journaling; `interrupted` after Ctrl-C (resumable);
   * `complete` when every item was measured within `max_errors`;
   * `incomplete` when it finished with more errors than `max_errors` allows;
   * `failed` when it stopped early on an error retries cannot fix (bad key,
   * unknown model, nothing listening). Only `complete` runs can pass a gate.
   */
  status: z.enum(['running', 'interrupted', 'complete', 'incomplete', 'failed']),
  /** Why the run is `incomplete` or `failed`: stage, count and the first error as the server gave it. */
  failure: z.string().optional(),
  /** Errors per stage, counted over every attempted item. */
  errors: z.array(stageErrorsSchema).optional(),
  provenance: provenanceSchema.optional(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  memevalVersion: z.string(),
  /** Model calls made, served from cache, and shared by in-flight dedup. */
  calls: z.object({ made: z.number(), cacheHits: z.number(), dedupHits: z.number(), errors: z.number() }).optional(),
  /**
   * Distinct secret-like values (keys, tokens, passwords, private keys) replaced
   * by `[REDACTED]` in what the run wrote, in total and per family. A resumed
   * run keeps the larger count of its attempts (each is a lower bound).
   */
  redactions: z.object({ total: z.number(), byFamily: z.record(z.string(), z.number()) }).optional(),
  node: z.string(),
  packages: z.record(z.string(), z.string()),
  gitSha: z.string().optional(),
  /** The agent model that answered probes (`offline` is the built-in reader, not an LLM). */
  model: z.string(),
  judge: z.string(),
  /** The judge's agreement with human labels (`memeval calibrate`), when on record. */
  judgeCalibration: judgeCalibrationSchema.optional(),
  repeat: z.number().default(1),
  baseline: z.string().optional(),
  configFile: z.string().optional(),
  /** The resolved config, with secrets removed. */
  config: z.record(z.string(), z.unknown()).default(() => ({})),
  strategies: z.array(strategyInfoSchema),
  transcripts: z
    .array(
      z.object({
        id: z.string(),
        file: z.string(),
        title: z.string().optional(),
        tags: names,
        turns: z.number(),
        probes: z.number(),
        /** sha256 of the file as read (absent in runs recorded before it was). */
        sha256: z.string().optional(),
      }),
    )
    .default(() => []),
  /** How the numbers were produced (prompts, judges, scorers, imported data); absent in runs made before it was recorded. */
  protocol: protocolSchema.optional(),
  /**
   * Set on a run made with `--shard i/n`: it holds only the jobs
   * (`strategy::transcript`) listed, so its numbers are not the run's until
   * `memeval merge` combines every shard. Gates and diffs refuse a shard.
   */
  shard: z
    .object({ index: z.number().int().min(1), count: z.number().int().min(1), jobs: names })
    .refine((s) => s.index <= s.count, { message: 'a shard\'s index is at most its count' })
    .optional(),
  /**
   * Set on a run made with `--batch`: its calls went through the Batch API.
   * Calls submitted and batches made (over every process of the run), and
   * lines a batch answered with an error (counted as errors of their items).
   */
  batch: z.object({ requests: z.number(), batches: z.number(), failedLines: z.number() }).optional(),
  /** Set on a run `memeval merge` made: the shards it combined. */
  mergedFrom: z.array(z.object({ runId: z.string(), shard: z.string() })).optional(),
});

export const runResultSchema = z.object({
  info: runInfoSchema,
  turns: turnEntriesSchema.transform(migrateTurns),
  probes: probeEntriesSchema,
  summaries: z.array(summaryRecordSchema),
});
