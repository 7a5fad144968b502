// Writes a transcript back in the YAML file format of docs/transcript-format.md,
// keys in the order the spec lists them, so generated and imported datasets read
// like hand-written ones and diff cleanly.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Document, isScalar, Scalar, visit } from 'yaml';
import type { Fact, Meta, Probe, ToolCallSpec, Transcript, Turn } from '../../core/types.js';

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
  return withMeta(out, probe.meta);
}

/** The plain object a transcript file holds (snake_case keys, spec order, no `file`). */
export function transcriptDocument(t: Transcript): Plain {
  const out: Plain = { id: t.id };
  if (t.title !== undefined) out.title = t.title;
  if (t.tags.length > 0) out.tags = t.tags;
  if (t.system !== undefined) out.system = t.system;
  out.turns = t.turns.map(turnDoc);
  if (t.facts.length > 0) out.facts = t.facts.map(factDoc);
  if (t.probes.length > 0) out.probes = t.probes.map(probeDoc);
  return withMeta(out, t.meta);
}

function useBlockStrings(doc: Document): void {
  visit(doc, {
    Scalar(key, node) {
      // Keys stay plain; only long or multi-line values become blocks.
      if (key === 'key' || !isScalar(node) || typeof node.value !== 'string') return;
      if (node.value.includes('\n') || node.value.length > BLOCK_MIN_CHARS) node.type = Scalar.BLOCK_LITERAL;
    },
  });
}

/** The transcript as YAML text. Deterministic: the same transcript always gives the same bytes. */
export function transcriptToYaml(t: Transcript): string {
  const doc = new Document(transcriptDocument(t), { version: '1.2' });
  useBlockStrings(doc);
  // lineWidth 0: never fold; a folded line would change nothing but makes diffs noisy.
  return doc.toString({ lineWidth: 0, blockQuote: 'literal', indentSeq: true, flowCollectionPadding: true });
}

/** Writes the transcript to `path`, creating folders as needed. */
export async function writeTranscriptFile(path: string, t: Transcript): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, transcriptToYaml(t), 'utf8');
}
