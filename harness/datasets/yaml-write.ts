// Writes a transcript back in the YAML file format of docs/transcript-format.md,
// keys in the order the spec lists them, so generated and imported datasets read
// like hand-written ones and diff cleanly.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Document, isScalar, Scalar, visit } from 'yaml';
import type { ArgumentRule, ExpectedCall, Fact, Meta, Probe, ToolCallSpec, Transcript, Turn } from '../../core/types.js';

/** Strings longer than this are written as `|` blocks so long chat lines stay readable. */
const BLOCK_MIN_CHARS = 80;

type Plain = Record<string, unknown>;

function withMeta(out: Plain, meta: Meta | undefined): Plain {
  if (meta !== undefined && Object.keys(meta).length > 0) out.meta = meta;
  return out;
}

function toolCallDoc(call: ToolCallSpec): Plain {
  return { name: call.name, arguments: call.arguments, output: call.output };
}

function turnDoc(turn: Turn): Plain {
  if (turn.kind === 'items') return withMeta({ items: turn.items }, turn.meta);
  const out: Plain = { user: turn.user };
  if (turn.at !== undefined) out.at = turn.at;
  if (turn.toolCalls.length > 0) out.tool_calls = turn.toolCalls.map(toolCallDoc);
  if (turn.assistant !== undefined) out.assistant = turn.assistant;
  return withMeta(out, turn.meta);
}

function factDoc(fact: Fact): Plain {
  const out: Plain = { id: fact.id, text: fact.text };
  if (fact.aliases.length > 0) out.aliases = fact.aliases;
  out.turn = fact.turn;
  if (fact.critical) out.critical = true;
  if (fact.supersededBy !== undefined) out.superseded_by = fact.supersededBy;
  return withMeta(out, fact.meta);
}

function probeDoc(probe: Probe): Plain {
  const out: Plain = {
    id: probe.id,
    after_turn: probe.afterTurn,
    question: probe.question,
    answer: probe.answer,
    must_include: probe.mustInclude,
  };
  if (probe.facts.length > 0) out.facts = probe.facts;
  out.kind = probe.kind;
  if (probe.expectCall !== undefined) out.expect_call = probe.expectCall === null ? 'none' : expectedCallDoc(probe.expectCall);
  return withMeta(out, probe.meta);
}

function expectedCallDoc(call: ExpectedCall): Plain {
  const args = Object.fromEntries(Object.entries(call.arguments).map(([name, rule]) => [name, argumentRuleDoc(rule)]));
  return { name: call.name, arguments: args };
}

function argumentRuleDoc(rule: ArgumentRule): unknown {
  if (rule.rule === 'any') return { any: true };
  if (rule.rule === 'one-of') return { one_of: rule.values };
  if (rule.rule === 'exact') return { exact: rule.value };
  return { normalised: rule.value };
}

/** The plain object a transcript file holds (snake_case keys, spec order, no `file`). */
export function transcriptDocument(t: Transcript): Plain {
  const out: Plain = { id: t.id };
  if (t.title !== undefined) out.title = t.title;
  if (t.tags.length > 0) out.tags = t.tags;
  if (t.system !== undefined) out.system = t.system;
  if (t.tools !== undefined) out.tools = t.tools;
  out.turns = t.turns.map(turnDoc);
  if (t.facts.length > 0) out.facts = t.facts.map(factDoc);
  if (t.probes.length > 0) out.probes = t.probes.map(probeDoc);
  return withMeta(out, t.meta);
}

/**
 * Characters a YAML 1.2 reader may not take raw, or reads differently: C0 and C1
 * controls (tab and line feed are fine), DEL, the BOM, the non-characters U+FFFE
 * and U+FFFF, unpaired surrogates, and NEL, U+2028 and U+2029, which YAML 1.1
 * readers (PyYAML, many editors) take as line breaks.
 */
const UNPORTABLE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/u;
const UNPORTABLE_ALL = new RegExp(UNPORTABLE.source, 'gu');
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\x85': '\\N', '\u2028': '\\L', '\u2029': '\\P' };

/** YAML's double-quoted escape for one unportable character (its short form where YAML has one). */
function escapeChar(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  const code = ch.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  return code <= 0xff ? `\\x${hex.padStart(2, '0')}` : `\\u${hex.padStart(4, '0')}`;
}

/** Long or multi-line strings become `|` blocks; strings with unportable characters become double-quoted. */
function chooseStringStyles(doc: Document): void {
  visit(doc, {
    Scalar(key, node) {
      if (!isScalar(node) || typeof node.value !== 'string') return;
      // A block scalar cannot escape anything, so these strings (keys too) must be double-quoted.
      if (UNPORTABLE.test(node.value)) node.type = Scalar.QUOTE_DOUBLE;
      // Keys stay plain; only long or multi-line values become blocks.
      else if (key !== 'key' && (node.value.includes('\n') || node.value.length > BLOCK_MIN_CHARS)) node.type = Scalar.BLOCK_LITERAL;
    },
  });
}

/** The transcript as YAML text. Deterministic: the same transcript always gives the same bytes. */
export function transcriptToYaml(t: Transcript): string {
  const doc = new Document(transcriptDocument(t), { version: '1.2' });
  chooseStringStyles(doc);
  // lineWidth 0: never fold; a folded line would change nothing but makes diffs noisy.
  const text = doc.toString({ lineWidth: 0, blockQuote: 'literal', indentSeq: true, flowCollectionPadding: true });
  // The yaml package escapes C0 controls itself but writes C1 controls, U+2028/9 and the
  // BOM raw even in double quotes. Every string holding one is double-quoted above and
  // the document's own syntax is ASCII, so each one left in the text is inside double
  // quotes, where the escape stands for the same character.
  return text.replace(UNPORTABLE_ALL, escapeChar);
}

/** Writes the transcript to `path`, creating folders as needed. */
export async function writeTranscriptFile(path: string, t: Transcript): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, transcriptToYaml(t), 'utf8');
}
