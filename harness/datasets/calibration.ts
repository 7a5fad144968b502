// The judge-calibration set: one YAML file per source excerpt, several
// labelled summaries each (format: datasets/calibration/README.md), read with
// the same file:line:col errors as transcripts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InputError, fileProblem, type Problem } from '../../core/errors.js';
import { turnItems } from '../../core/items.js';
import type { Fact, MessageTurn, SummaryRecord, ToolCallSpec, Transcript } from '../../core/types.js';
import type { CalibrationItem, CalibrationLabels } from '../../graders/calibrate.js';
import { DEFAULT_SUMMARIZER } from '../../strategies/registry.js';
import { buildSummaryInput, loadSummaryPrompt } from '../../strategies/summary-input.js';
import { readMap, scalarText, YamlSource, type MapReader, type YNode } from '../yaml-source.js';

/** The calibration set is graded against the cookbook prompt and its 200-word limit. */
export const CALIBRATION_WORD_LIMIT = DEFAULT_SUMMARIZER.word_limit;

/** Default `--out` of `memeval calibrate`: records then live in `.memeval/calibration/<judge-id>.json`, next to the call cache. */
export const DEFAULT_CALIBRATION_OUT = '.memeval';

const FILE_KEYS = ['id', 'title', 'source', 'facts', 'summaries', 'meta'];
const TURN_KEYS = ['user', 'assistant', 'at', 'tool_calls', 'meta'];
const TOOL_KEYS = ['name', 'arguments', 'output'];
const FACT_KEYS = ['id', 'text', 'aliases', 'turn', 'critical', 'superseded_by', 'meta'];
const SUMMARY_KEYS = ['id', 'category', 'text', 'labels', 'note', 'meta'];
const LABEL_KEYS = ['coverage', 'faithfulness', 'temporal', 'format', 'overall'];

function readToolCall(src: YamlSource, raw: YNode, label: string): ToolCallSpec | undefined {
  const m = readMap(src, raw, label);
  if (!m) return undefined;
  m.allow(TOOL_KEYS);
  const name = m.word('name', { required: true });
  const output = m.string('output', { required: true });
  let args: ToolCallSpec['arguments'] = {};
  const node = m.value('arguments');
  if (node) {
    const text = scalarText(node);
    const plain = text === undefined ? src.plain(node, `"arguments" in ${label}`) : undefined;
    if (text !== undefined) args = text;
    else if (plain?.ok && typeof plain.value === 'object' && plain.value !== null && !Array.isArray(plain.value)) {
      args = plain.value as Record<string, unknown>;
    } else m.wrongType('arguments', 'a mapping or text');
  }
  return name !== undefined && output !== undefined ? { name, arguments: args, output } : undefined;
}

function readTurn(src: YamlSource, raw: YNode, n: number): MessageTurn | undefined {
  const m = readMap(src, raw, `source turn ${n}`);
  if (!m) return undefined;
  m.allow(TURN_KEYS);
  const user = m.string('user', { required: true, nonEmpty: true });
  const toolCalls = (m.list('tool_calls') ?? []).map((t, i) => readToolCall(src, t, `tool call ${i + 1} of source turn ${n}`));
  if (user === undefined || toolCalls.some((t) => t === undefined)) return undefined;
  return { kind: 'message', user, assistant: m.string('assistant'), at: m.string('at'), toolCalls: toolCalls as ToolCallSpec[] };
}

function readFact(src: YamlSource, raw: YNode, i: number, turns: number): { fact?: Fact; node?: MapReader } {
  const m = readMap(src, raw, `fact ${i + 1}`);
  if (!m) return {};
  m.allow(FACT_KEYS);
  const id = m.word('id', { required: true });
  const text = m.string('text', { required: true, nonEmpty: true });
  const turn = m.int('turn', { required: true, min: 1, max: Math.max(1, turns) });
  const aliases = m.stringList('aliases', { nonEmptyEntries: true }) ?? [];
  if (id === undefined || text === undefined || turn === undefined) return { node: m };
  const fact: Fact = { id, text, aliases, turn, critical: m.boolean('critical') ?? false };
  const next = m.word('superseded_by');
  if (next !== undefined) fact.supersededBy = next;
  return { fact, node: m };
}

function readLabels(m: MapReader, label: string): CalibrationLabels | undefined {
  const labels = m.map('labels', `labels of ${label}`);
  if (!labels) {
    if (!m.has('labels')) m.missing('labels');
    return undefined;
  }
  labels.allow(LABEL_KEYS);
  const verdict = (name: string): boolean | undefined => {
    const word = labels.word(name, { required: true });
    if (word === undefined) return undefined;
    if (word !== 'pass' && word !== 'fail') {
      labels.problem(name, `"${name}" in labels of ${label} must be pass or fail, not ${JSON.stringify(word)}`);
      return undefined;
    }
    return word === 'pass';
  };
  const coverage = verdict('coverage');
  const faithfulness = verdict('faithfulness');
  const temporal = verdict('temporal');
  const format = verdict('format');
  const overall = labels.int('overall', { required: true, min: 1, max: 5 });
  if (coverage === undefined || faithfulness === undefined || temporal === undefined || format === undefined || overall === undefined) {
    return undefined;
  }
  return { coverage, faithfulness, temporal, format, overall };
}

/** Parses one calibration file; every problem is collected into `problems`. */
export function parseCalibrationFile(text: string, file: string, problems: Problem[]): CalibrationItem[] {
  const src = YamlSource.parse(text, file);
  const items = src.ok && src.root ? readCalibrationRoot(src, file) : [];
  if (src.ok && !src.root) src.problems.push(fileProblem(file, 'the file is empty'));
  problems.push(...src.problems);
  return src.problems.length === 0 ? items : [];
}

function readCalibrationRoot(src: YamlSource, file: string): CalibrationItem[] {
  const root = readMap(src, src.root, 'the calibration file');
  if (!root) return [];
  root.allow(FILE_KEYS);
  const id = root.word('id') ?? basename(file).replace(/\.ya?ml$/i, '');
  const turnNodes = root.list('source', { required: true, nonEmpty: true }) ?? [];
  const turns = turnNodes.map((t, i) => readTurn(src, t, i + 1));
  const factReads = (root.list('facts') ?? []).map((f, i) => readFact(src, f, i, turns.length));
  const facts = factReads.map((r) => r.fact).filter((f): f is Fact => f !== undefined);
  checkFactLinks(facts, factReads);
  const transcript: Transcript = {
    id,
    title: root.string('title'),
    tags: ['calibration'],
    turns: turns.filter((t): t is MessageTurn => t !== undefined),
    facts,
    probes: [],
    file,
  };
  if (transcript.turns.length !== turnNodes.length) return [];
  const prompt = loadSummaryPrompt();
  const items = transcript.turns.flatMap((turn, i) => turnItems(turn, i + 1));
  const user = buildSummaryInput(items, DEFAULT_SUMMARIZER.tool_trim_limit);
  const seen = new Set<string>();
  const out: CalibrationItem[] = [];
  (root.list('summaries', { required: true, nonEmpty: true }) ?? []).forEach((raw, i) => {
    const m = readMap(src, raw, `summary ${i + 1}`);
    if (!m) return;
    m.allow(SUMMARY_KEYS);
    const sid = m.word('id', { required: true });
    const text = m.string('text', { required: true, nonEmpty: true });
    const labels = readLabels(m, `summary ${i + 1}`);
    if (sid !== undefined && seen.has(sid)) m.problem('id', `summary id ${JSON.stringify(sid)} is used twice in this file`);
    if (sid === undefined || text === undefined || !labels || seen.has(sid)) return;
    seen.add(sid);
    const summary: SummaryRecord = {
      strategy: 'calibration',
      transcript: id,
      turn: transcript.turns.length,
      coveredTurns: [1, transcript.turns.length],
      index: 1,
      summarizer: 'human-labelled',
      promptPath: prompt.path,
      promptHash: prompt.hash,
      request: { system: prompt.text, user },
      text: text.trim(),
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 0,
    };
    out.push({ id: `${id}/${sid}`, file, category: m.word('category'), transcript, summary, labels });
  });
  return out;
}

function checkFactLinks(facts: Fact[], reads: { fact?: Fact; node?: MapReader }[]): void {
  const ids = new Set<string>();
  for (const r of reads) {
    if (!r.fact || !r.node) continue;
    if (ids.has(r.fact.id)) r.node.problem('id', `fact id ${JSON.stringify(r.fact.id)} is used twice`);
    ids.add(r.fact.id);
  }
  const all = new Set(facts.map((f) => f.id));
  for (const r of reads) {
    const next = r.fact?.supersededBy;
    if (next !== undefined && !all.has(next)) r.node?.problem('superseded_by', `superseded_by names no fact: ${JSON.stringify(next)}`);
  }
}

/** Loads every `*.yaml` of `dir` (sorted by name); all problems at once as an InputError. */
export function loadCalibrationSet(dir: string): CalibrationItem[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch {
    throw new InputError([fileProblem(dir, 'calibration folder not found')]);
  }
  if (names.length === 0) throw new InputError([fileProblem(dir, 'no .yaml calibration files in this folder')]);
  const problems: Problem[] = [];
  const items = names.flatMap((n) => parseCalibrationFile(readFileSync(join(dir, n), 'utf8'), join(dir, n), problems));
  if (problems.length > 0) throw new InputError(problems);
  return items;
}

// ---------------------------------------------------------------------------
// Records: `<out>/calibration/<judge-id>.json` (judge id with anything but
// letters, digits, `.`, `_` and `-` replaced by `_`), and `<out>/calibration.json`
// holding the latest report.

export function calibrationRecordPath(judgeId: string, dir: string): string {
  return join(dir, 'calibration', `${judgeId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/**
 * True when a calibration report for `judgeId` is on record under `dir` (the
 * calibrate `--out`) with every item graded. A bare model name means the openai provider, as in configs,
 * so `gpt-4.1-mini` finds the record of `openai:gpt-4.1-mini`.
 */
export function hasCalibration(judgeId: string, dir: string): boolean {
  const id = judgeId.trim();
  const ids = id === 'offline' || id.includes(':') ? [id] : [id, `openai:${id}`];
  return ids.some((candidate) => recordExists(candidate, dir));
}

function recordExists(judgeId: string, dir: string): boolean {
  const path = calibrationRecordPath(judgeId, dir);
  if (!existsSync(path)) return false;
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as { judge?: unknown; items?: unknown; errors?: unknown };
    // A run in which the judge failed on some item is on file for inspection but does not count.
    return record.judge === judgeId && typeof record.items === 'number' && record.items > 0 && record.errors === 0;
  } catch {
    return false;
  }
}
