// Loads transcripts (docs/transcript-format.md is the contract) and whole
// suites. Every problem of every file is collected, then thrown once as an
// InputError, so a user fixes a dataset in one pass.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { glob } from 'tinyglobby';
import { InputError, fileProblem, type Problem } from '../../core/errors.js';
import { normalizeText } from '../../core/text.js';
import { PROBE_KINDS } from '../../core/types.js';
import type { AgentInputItem, Fact, ItemsTurn, MessageTurn, Probe, ProbeKind, ToolCallSpec, Transcript, Turn } from '../../core/types.js';
import { MapReader, YamlSource, describe, isMap, isScalar, isSeq, quote, readMap, scalarText, type YNode } from '../yaml-source.js';

const TRANSCRIPT_KEYS = ['id', 'title', 'tags', 'system', 'turns', 'facts', 'probes', 'meta'] as const;
const TURN_KEYS = ['user', 'assistant', 'tool_calls', 'at', 'items', 'meta'] as const;
const TOOL_CALL_KEYS = ['name', 'arguments', 'output'] as const;
const FACT_KEYS = ['id', 'text', 'aliases', 'turn', 'critical', 'superseded_by', 'meta'] as const;
const PROBE_KEYS = ['id', 'after_turn', 'question', 'answer', 'must_include', 'facts', 'kind', 'meta'] as const;
const MESSAGE_ROLES = ['user', 'assistant', 'system'];
/** Keys only a message turn may have. */
const USER_ONLY_KEYS = ['assistant', 'tool_calls', 'at'] as const;

/** A parsed transcript plus where its id came from, for cross-file duplicate messages. */
interface ReadResult {
  transcript?: Transcript;
  problems: Problem[];
  idWhere: string;
}

/** A tool call id seen in raw items, for pairing calls with results. */
interface CallSeen {
  id: string;
  node: YNode;
  turn: number;
}

interface CallLedger {
  calls: CallSeen[];
  results: CallSeen[];
}

export function defaultTranscriptId(file: string): string {
  return basename(file).replace(/\.ya?ml$/i, '');
}

/** Parses one transcript; throws InputError listing every problem in it. */
export function parseTranscript(text: string, file: string): Transcript {
  const result = readTranscript(text, file);
  if (!result.transcript || result.problems.length > 0) throw new InputError(result.problems);
  return result.transcript;
}

export function loadTranscriptFile(path: string): Transcript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError([fileProblem(path, `cannot read file (${errorCode(e)})`)]);
  }
  return parseTranscript(text, path);
}

function errorCode(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? code : (e as Error).message;
}

function readTranscript(text: string, file: string): ReadResult {
  const src = YamlSource.parse(text, file);
  const idWhere = `${file}:1:1`;
  if (!src.ok) return { problems: src.problems, idWhere };
  if (src.root === null) {
    src.report(null, 'the file is empty; a transcript needs at least "turns:"');
    return { problems: src.problems, idWhere };
  }
  const top = readMap(src, src.root, 'the transcript', 'a mapping (id:, turns:, facts:, probes:)');
  if (!top) return { problems: src.problems, idWhere };
  const transcript = readTop(top, file);
  return { transcript, problems: src.problems, idWhere: top.has('id') ? src.where(top.at('id')) : idWhere };
}

function readTop(top: MapReader, file: string): Transcript {
  top.allow(TRANSCRIPT_KEYS);
  const turns = readTurns(top);
  const turnCount = turns?.length;
  const facts = readFacts(top, turnCount);
  const probes = readProbes(top, turnCount, facts);
  const transcript: Transcript = {
    id: top.string('id', { nonEmpty: true }) ?? defaultTranscriptId(file),
    tags: top.stringList('tags', { nonEmptyEntries: true }) ?? [],
    turns: turns ?? [],
    facts: facts.map((f) => f.fact),
    probes,
    file,
  };
  const title = top.string('title');
  if (title !== undefined) transcript.title = title;
  const system = top.string('system');
  if (system !== undefined) transcript.system = system;
  const meta = top.meta();
  if (meta !== undefined) transcript.meta = meta;
  return transcript;
}

// ---------------------------------------------------------------- turns

function readTurns(top: MapReader): Turn[] | undefined {
  const nodes = top.list('turns', { required: true, nonEmpty: true });
  if (!nodes) return undefined;
  const ledger: CallLedger = { calls: [], results: [] };
  const turns = nodes.map((node, i) => readTurn(top.src, node, i + 1, ledger));
  checkCallPairs(top.src, ledger);
  // A broken turn still counts, so probe ranges are checked against what the user wrote.
  return turns.map((t) => t ?? { kind: 'message', user: '', toolCalls: [] });
}

function readTurn(src: YamlSource, node: YNode, n: number, ledger: CallLedger): Turn | undefined {
  const label = `turn ${n}`;
  const turn = readMap(src, node, label, 'a mapping with "user" or "items"');
  if (!turn) return undefined;
  turn.allow(TURN_KEYS);
  const hasUser = turn.has('user');
  const hasItems = turn.has('items');
  if (!hasUser && !hasItems) {
    src.report(turn.node, `${label} has neither "user" nor "items"`);
    return undefined;
  }
  if (hasUser && hasItems) {
    src.report(turn.keyNode('items'), `${label} has both "user" and "items"; use one`);
    return undefined;
  }
  return hasUser ? readMessageTurn(turn) : readItemsTurn(turn, n, ledger);
}

function readMessageTurn(turn: MapReader): MessageTurn | undefined {
  const user = turn.string('user', { required: true });
  const result: MessageTurn = { kind: 'message', user: user ?? '', toolCalls: readToolCalls(turn) };
  const assistant = turn.string('assistant');
  if (assistant !== undefined) result.assistant = assistant;
  const at = readTimestamp(turn);
  if (at !== undefined) result.at = at;
  const meta = turn.meta();
  if (meta !== undefined) result.meta = meta;
  return user === undefined ? undefined : result;
}

function readTimestamp(turn: MapReader): string | undefined {
  const at = turn.string('at');
  if (at === undefined) return undefined;
  if (Number.isNaN(Date.parse(at))) {
    turn.problem('at', `"at" in ${turn.label} is not a date and time: ${quote(at)} (use ISO 8601, e.g. 2025-03-02T10:32:00Z)`);
    return undefined;
  }
  return at;
}

function readToolCalls(turn: MapReader): ToolCallSpec[] {
  const nodes = turn.list('tool_calls') ?? [];
  const calls: ToolCallSpec[] = [];
  nodes.forEach((node, i) => {
    const call = readToolCall(turn.src, node, `tool call ${i + 1} of ${turn.label}`);
    if (call) calls.push(call);
  });
  return calls;
}

function readToolCall(src: YamlSource, node: YNode, label: string): ToolCallSpec | undefined {
  const call = readMap(src, node, label);
  if (!call) return undefined;
  call.allow(TOOL_CALL_KEYS);
  const name = call.word('name', { required: true });
  if (name !== undefined && name.trim() === '') call.problem('name', `"name" in ${label} must not be empty`);
  const output = call.string('output', { required: true });
  const args = readArguments(call);
  if (name === undefined || output === undefined || args === undefined) return undefined;
  return { name, arguments: args, output };
}

function readArguments(call: MapReader): ToolCallSpec['arguments'] | undefined {
  if (!call.has('arguments')) return {};
  const node = call.value('arguments');
  if (node && isMap(node)) {
    const plain = call.src.plain(node, `"arguments" in ${call.label}`);
    return plain.ok ? (plain.value as Record<string, unknown>) : undefined;
  }
  const text = node && isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
  if (text === undefined) call.wrongType('arguments', 'a mapping or a JSON string');
  return text;
}

// ---------------------------------------------------------------- raw items

function readItemsTurn(turn: MapReader, n: number, ledger: CallLedger): ItemsTurn | undefined {
  for (const key of USER_ONLY_KEYS) {
    if (turn.has(key)) turn.src.report(turn.keyNode(key), `"${key}" in ${turn.label} is only allowed with "user", not with "items"`);
  }
  const nodes = turn.list('items', { required: true, nonEmpty: true });
  if (!nodes) return undefined;
  const items: AgentInputItem[] = [];
  let ok = true;
  nodes.forEach((node, i) => {
    const item = readItem(turn.src, node, `item ${i + 1} of ${turn.label}`, n, ledger);
    if (item) items.push(item);
    else ok = false;
  });
  const result: ItemsTurn = { kind: 'items', items };
  const meta = turn.meta();
  if (meta !== undefined) result.meta = meta;
  return ok ? result : undefined;
}

/** Checks the structure the harness relies on and keeps everything else verbatim. */
function readItem(src: YamlSource, node: YNode, label: string, turn: number, ledger: CallLedger): AgentInputItem | undefined {
  const item = readMap(src, node, label, 'an Agents SDK item (a mapping with "role" or "type")');
  if (!item) return undefined;
  const before = src.problems.length;
  if (!item.has('role') && !item.has('type')) {
    src.report(item.node, `${label} needs "role" or "type"`);
    return undefined;
  }
  const type = item.has('type') ? item.word('type') : 'message';
  if (type === 'message') checkMessageItem(item);
  else if (type === 'function_call') checkFunctionCall(item, turn, ledger);
  else if (type === 'function_call_result') checkFunctionResult(item, turn, ledger);
  else if (type === 'function_call_output') {
    item.problem('type', `${label} has type "function_call_output" (a Responses API name); the Agents SDK item is "function_call_result" with "callId", "name" and "output"`);
  }
  if (src.problems.length > before) return undefined;
  const plain = src.plain(item.node, label);
  if (!plain.ok) return undefined;
  return renameCallId(plain.value as Record<string, unknown>) as unknown as AgentInputItem;
}

function checkMessageItem(item: MapReader): void {
  const role = item.word('role', { required: true });
  if (role !== undefined && !MESSAGE_ROLES.includes(role)) {
    item.problem('role', `"role" in ${item.label} must be one of ${MESSAGE_ROLES.join(', ')}, not ${quote(role)}`);
  }
  if (!item.has('content')) {
    item.missing('content');
    return;
  }
  const content = item.value('content');
  const isText = content && isScalar(content) && typeof content.value === 'string';
  if (!isText && !(content && isSeq(content))) item.wrongType('content', 'text or a list of content parts');
}

/** Reads `callId`, accepting `call_id` as pasted from the Responses API. */
function readCallId(item: MapReader): string | undefined {
  if (item.has('callId') && item.has('call_id')) {
    item.problem('call_id', `${item.label} has both "callId" and "call_id"; keep one`);
    return undefined;
  }
  const key = item.has('call_id') ? 'call_id' : 'callId';
  const id = item.word(key);
  if (!item.has(key)) item.missing('callId');
  else if (id !== undefined && id.trim() === '') item.problem(key, `"${key}" in ${item.label} must not be empty`);
  return id;
}

function checkFunctionCall(item: MapReader, turn: number, ledger: CallLedger): void {
  const id = readCallId(item);
  item.word('name', { required: true });
  if (!item.has('arguments')) item.missing('arguments');
  else if (!isStringNode(item.value('arguments'))) item.wrongType('arguments', 'a JSON string (quote it)');
  if (id) ledger.calls.push({ id, node: item.node, turn });
}

function isStringNode(node: YNode | null | undefined): boolean {
  return !!node && isScalar(node) && typeof node.value === 'string';
}

function checkFunctionResult(item: MapReader, turn: number, ledger: CallLedger): void {
  const id = readCallId(item);
  if (!item.has('output')) item.missing('output');
  else if (item.value('output') === null) item.wrongType('output', 'text or structured output');
  if (id) ledger.results.push({ id, node: item.node, turn });
}

/** APIs reject a tool result without its call and a call without its result. */
function checkCallPairs(src: YamlSource, ledger: CallLedger): void {
  const callIds = new Set<string>();
  const resultIds = new Set(ledger.results.map((r) => r.id));
  const seen = [...ledger.calls.map((c) => ({ ...c, kind: 'call' as const })), ...ledger.results.map((r) => ({ ...r, kind: 'result' as const }))];
  seen.sort((a, b) => src.offsetOf(a.node) - src.offsetOf(b.node));
  for (const entry of seen) {
    if (entry.kind === 'call') {
      if (callIds.has(entry.id)) src.report(entry.node, `function_call id ${quote(entry.id)} in turn ${entry.turn} is used twice`);
      callIds.add(entry.id);
      if (!resultIds.has(entry.id)) src.report(entry.node, `function_call ${quote(entry.id)} in turn ${entry.turn} has no function_call_result with that callId`);
    } else if (!callIds.has(entry.id)) {
      src.report(entry.node, `function_call_result ${quote(entry.id)} in turn ${entry.turn} has no earlier function_call with that callId`);
    }
  }
}

function renameCallId(item: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(item, 'call_id')) return item;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    Object.defineProperty(out, key === 'call_id' ? 'callId' : key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

// ---------------------------------------------------------------- facts

interface ReadFact {
  fact: Fact;
  node: YNode;
  supersededAt?: YNode;
}

function readFacts(top: MapReader, turnCount: number | undefined): ReadFact[] {
  const nodes = top.list('facts') ?? [];
  const facts: ReadFact[] = [];
  const firstAt = new Map<string, string>();
  nodes.forEach((node, i) => {
    const read = readFact(top.src, node, i + 1, turnCount);
    if (!read) return;
    const earlier = firstAt.get(read.fact.id);
    if (earlier) top.src.report(idNode(read.node, top.src), `duplicate fact id ${quote(read.fact.id)} (first defined at ${earlier})`);
    else firstAt.set(read.fact.id, top.src.where(idNode(read.node, top.src)));
    facts.push(read);
  });
  checkSupersession(top.src, facts);
  return facts;
}

function idNode(node: YNode, src: YamlSource): YNode {
  const map = src.resolve(node);
  if (!map || !isMap(map)) return node;
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === 'id');
  return (pair?.value as YNode | null) ?? node;
}

/** `fact "os"` when the id is readable, else `fact 2`. */
function labelFor(kind: string, src: YamlSource, node: YNode, index: number): string {
  const map = src.resolve(node);
  if (map && isMap(map)) {
    const pair = map.items.find((p) => isScalar(p.key) && p.key.value === 'id');
    const id = scalarText(pair?.value as YNode | null);
    if (id && id.trim() !== '') return `${kind} ${quote(id)}`;
  }
  return `${kind} ${index}`;
}

function readFact(src: YamlSource, node: YNode, index: number, turnCount: number | undefined): ReadFact | undefined {
  const label = labelFor('fact', src, node, index);
  const f = readMap(src, node, label);
  if (!f) return undefined;
  f.allow(FACT_KEYS);
  const id = f.string('id', { required: true, nonEmpty: true });
  const text = f.string('text', { required: true, nonEmpty: true });
  const aliases = f.stringList('aliases', { nonEmptyEntries: true }) ?? [];
  const turn = f.int('turn', { required: true });
  const critical = f.boolean('critical') ?? false;
  const supersededBy = f.string('superseded_by', { nonEmpty: true });
  const meta = f.meta();
  if (text !== undefined) checkMatchable(f, 'text', text);
  aliases.forEach((alias) => checkMatchable(f, 'aliases', alias));
  if (turn !== undefined && turnCount !== undefined) checkTurnRange(f, 'turn', turn, turnCount, `${label} turn ${turn}`);
  if (id === undefined || text === undefined || turn === undefined) return undefined;
  const fact: Fact = { id, text, aliases, turn, critical };
  if (supersededBy !== undefined) fact.supersededBy = supersededBy;
  if (meta !== undefined) fact.meta = meta;
  return { fact, node, supersededAt: supersededBy !== undefined ? f.at('superseded_by') : undefined };
}

/** A phrase with no letters or digits normalises to nothing and could never match a reply or a context. */
function checkMatchable(reader: MapReader, key: string, phrase: string): void {
  if (phrase.trim() !== '' && normalizeText(phrase) === '') {
    reader.problem(key, `${quote(phrase)} in "${key}" of ${reader.label} has no letters or digits, so it can never match`);
  }
}

function checkTurnRange(reader: MapReader, key: string, value: number, turnCount: number, subject: string): void {
  if (value >= 1 && value <= turnCount) return;
  const turns = turnCount === 1 ? 'the 1 turn' : `the ${turnCount} turns`;
  reader.problem(key, `${subject} is outside ${turns} (turns are numbered 1 to ${turnCount})`);
}

function checkSupersession(src: YamlSource, facts: ReadFact[]): void {
  const ids = new Set(facts.map((f) => f.fact.id));
  for (const { fact, supersededAt } of facts) {
    if (fact.supersededBy === undefined) continue;
    if (fact.supersededBy === fact.id) src.report(supersededAt, `fact ${quote(fact.id)} is superseded by itself`);
    else if (!ids.has(fact.supersededBy)) {
      src.report(supersededAt, `fact ${quote(fact.id)} is superseded_by ${quote(fact.supersededBy)}, which is not a fact in this transcript`);
    }
  }
}

// ---------------------------------------------------------------- probes

function readProbes(top: MapReader, turnCount: number | undefined, facts: ReadFact[]): Probe[] {
  const nodes = top.list('probes') ?? [];
  const factTurns = new Map(facts.map((f) => [f.fact.id, f.fact.turn]));
  const probes: Probe[] = [];
  const firstAt = new Map<string, string>();
  nodes.forEach((node, i) => {
    const probe = readProbe(top.src, node, i + 1, turnCount, factTurns);
    if (!probe) return;
    const at = idNode(node, top.src);
    const earlier = firstAt.get(probe.id);
    if (earlier) top.src.report(at, `duplicate probe id ${quote(probe.id)} (first defined at ${earlier})`);
    else firstAt.set(probe.id, top.src.where(at));
    probes.push(probe);
  });
  return probes;
}

function readProbe(
  src: YamlSource,
  node: YNode,
  index: number,
  turnCount: number | undefined,
  factTurns: Map<string, number>,
): Probe | undefined {
  const label = labelFor('probe', src, node, index);
  const p = readMap(src, node, label);
  if (!p) return undefined;
  p.allow(PROBE_KEYS);
  const id = p.string('id', { required: true, nonEmpty: true });
  const afterTurn = p.int('after_turn', { required: true });
  const question = p.string('question', { required: true, nonEmpty: true });
  const answer = p.string('answer', { required: true });
  const mustInclude = readMustInclude(p);
  const factIds = p.stringList('facts', { nonEmptyEntries: true }) ?? [];
  const kind = readKind(p);
  const meta = p.meta();
  if (afterTurn !== undefined && turnCount !== undefined) {
    checkTurnRange(p, 'after_turn', afterTurn, turnCount, `${label} after_turn ${afterTurn}`);
  }
  checkProbeFacts(p, factIds, factTurns, afterTurn, kind);
  if (id === undefined || afterTurn === undefined || question === undefined || answer === undefined) return undefined;
  if (mustInclude === undefined || kind === undefined) return undefined;
  const probe: Probe = { id, afterTurn, question, answer, mustInclude, facts: factIds, kind };
  if (meta !== undefined) probe.meta = meta;
  return probe;
}

function readKind(p: MapReader): ProbeKind | undefined {
  if (!p.has('kind')) return 'recall';
  const kind = p.word('kind');
  if (kind === undefined) return undefined;
  if ((PROBE_KINDS as readonly string[]).includes(kind)) return kind as ProbeKind;
  p.problem('kind', `"kind" in ${p.label} must be one of ${PROBE_KINDS.join(', ')}, not ${quote(kind)}`);
  return undefined;
}

function checkProbeFacts(
  p: MapReader,
  factIds: string[],
  factTurns: Map<string, number>,
  afterTurn: number | undefined,
  kind: ProbeKind | undefined,
): void {
  for (const id of factIds) {
    const turn = factTurns.get(id);
    if (turn === undefined) {
      p.problem('facts', `${p.label} names fact ${quote(id)}, which is not a fact in this transcript`);
    } else if (afterTurn !== undefined && kind !== 'abstention' && turn > afterTurn) {
      p.problem('facts', `${p.label} after_turn ${afterTurn} depends on fact ${quote(id)}, which is only stated in turn ${turn}`);
    }
  }
}

/** `must_include`: a string (one entry), or a list whose entries are a string or a list of alternatives. */
function readMustInclude(p: MapReader): string[][] | undefined {
  if (!p.has('must_include')) return [];
  const node = p.value('must_include');
  const single = scalarText(node);
  if (single !== undefined) return checkEntry(p, [single], node as YNode) ? [[single]] : undefined;
  if (!node || !isSeq(node)) {
    p.wrongType('must_include', 'text or a list');
    return undefined;
  }
  const out: string[][] = [];
  let ok = true;
  for (const raw of node.items as YNode[]) {
    const entry = readAlternatives(p, raw);
    if (entry && checkEntry(p, entry, raw)) out.push(entry);
    else ok = false;
  }
  return ok ? out : undefined;
}

function readAlternatives(p: MapReader, raw: YNode): string[] | undefined {
  const node = p.src.resolve(raw);
  const single = scalarText(node);
  if (single !== undefined) return [single];
  if (!node || !isSeq(node)) {
    p.src.report(raw, `an entry of "must_include" in ${p.label} must be text or a list of alternatives, not ${describe(node)}`);
    return undefined;
  }
  const alternatives: string[] = [];
  for (const alt of node.items as YNode[]) {
    const text = scalarText(p.src.resolve(alt));
    if (text === undefined) {
      p.src.report(alt ?? raw, `an alternative in "must_include" of ${p.label} must be text, not ${describe(p.src.resolve(alt))}`);
      return undefined;
    }
    alternatives.push(text);
  }
  if (alternatives.length === 0) {
    p.src.report(raw, `an entry of "must_include" in ${p.label} is an empty list (it could never be satisfied)`);
    return undefined;
  }
  return alternatives;
}

function checkEntry(p: MapReader, alternatives: string[], node: YNode): boolean {
  for (const text of alternatives) {
    if (normalizeText(text) === '') {
      p.src.report(node, `${quote(text)} in "must_include" of ${p.label} has no letters or digits, so it can never match`);
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------- suites

/** Shown relative to the working directory when inside it, so messages stay short and clickable. */
function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

/** `!pattern` entries exclude files from every other pattern (e.g. `!datasets/calibration/**`). */
async function expandGlobs(globs: string[], baseDir: string, problems: Problem[]): Promise<string[]> {
  const files = new Set<string>();
  const ignore = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1));
  for (const pattern of globs.filter((g) => !g.startsWith('!'))) {
    const matches = await glob(pattern, { cwd: baseDir, ignore, absolute: true, onlyFiles: true, expandDirectories: false });
    if (matches.length === 0) problems.push(fileProblem(pattern, 'no transcript files match'));
    for (const m of matches) files.add(resolve(m));
  }
  return [...files].sort();
}

async function readSuiteFile(abs: string): Promise<ReadResult> {
  const file = displayPath(abs);
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (e) {
    return { problems: [fileProblem(file, `cannot read file (${errorCode(e)})`)], idWhere: file };
  }
  return readTranscript(text, file);
}

/**
 * Loads every transcript matched by `globs` (relative to `baseDir`, or
 * absolute), sorted by path. Throws one InputError for the whole suite.
 */
export async function loadSuite(globs: string[], baseDir: string): Promise<Transcript[]> {
  const problems: Problem[] = [];
  if (globs.length === 0) problems.push(fileProblem(baseDir, 'no dataset globs given, so the suite is empty'));
  const files = await expandGlobs(globs, baseDir, problems);
  const results = await Promise.all(files.map(readSuiteFile));
  const transcripts: Transcript[] = [];
  const byId = new Map<string, string>();
  for (const result of results) {
    problems.push(...result.problems);
    if (!result.transcript || result.problems.length > 0) continue;
    const t = result.transcript;
    const other = byId.get(t.id);
    if (other) problems.push(problemFromWhere(result.idWhere, `transcript id ${quote(t.id)} is also used by ${other}`));
    else byId.set(t.id, result.idWhere);
    transcripts.push(t);
  }
  if (problems.length === 0 && transcripts.length === 0) problems.push(fileProblem(baseDir, 'the suite has no transcripts'));
  if (problems.length > 0) throw new InputError(problems);
  return transcripts;
}

/** Rebuilds a problem from a `file:line:col` string (file names may contain colons). */
function problemFromWhere(where: string, message: string): Problem {
  const m = /^(.*):(\d+):(\d+)$/.exec(where);
  if (!m) return fileProblem(where, message);
  return { file: m[1], line: Number(m[2]), col: Number(m[3]), message };
}
