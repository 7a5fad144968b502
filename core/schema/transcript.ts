// A transcript as the rest of the code sees it: parsed, validated, camelCase.
// core/types.ts exports the types. The YAML schemas of harness/schema/ are the
// input contract (snake_case keys, file:line:col messages) and transform into
// these values, so the shape is written once and tsc checks that the reader
// produces it.
import type { AgentInputItem } from '@openai/agents';
import { z } from 'zod';
import { PROBE_KINDS } from './run.js';

/** Free-form user notes allowed under `meta:` anywhere in a transcript. */
export const metaSchema = z.record(z.string(), z.unknown());

export const toolCallSpecSchema = z.object({
  name: z.string(),
  /** Arguments as the transcript wrote them; sent to the model as a JSON string. */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  output: z.string(),
});

/** A tool the model may call, as the Responses and Chat Completions APIs take it. */
export const toolDefinitionSchema = z.object({
  name: z.string(),
  description: z.string().optional(),
  /** JSON Schema of the arguments (an object schema). */
  parameters: z.record(z.string(), z.unknown()),
});

/**
 * How one expected argument of a tool probe is matched: `exact` (the same JSON
 * value), `normalised` (the same text after answer normalisation), `one-of`
 * (any of the values, normalised), `any` (present, any value).
 */
export const argumentRuleSchema = z.discriminatedUnion('rule', [
  z.object({ rule: z.literal('exact'), value: z.unknown() }),
  z.object({ rule: z.literal('normalised'), value: z.string() }),
  z.object({ rule: z.literal('one-of'), values: z.array(z.string()) }),
  z.object({ rule: z.literal('any') }),
]);

/** The call a tool probe expects: a tool and a rule per argument it checks. */
export const expectedCallSchema = z.object({
  name: z.string(),
  arguments: z.record(z.string(), argumentRuleSchema),
});

export const messageTurnSchema = z.object({
  kind: z.literal('message'),
  user: z.string(),
  assistant: z.string().optional(),
  toolCalls: z.array(toolCallSpecSchema),
  at: z.string().optional(),
  meta: metaSchema.optional(),
});

export const itemsTurnSchema = z.object({
  kind: z.literal('items'),
  // Typed, not checked here: the YAML reader checks each item with the SDK's own item schemas.
  /** Raw Agents SDK input items, verbatim from the transcript. */
  items: z.array(z.custom<AgentInputItem>()),
  meta: metaSchema.optional(),
});

export const turnSchema = z.discriminatedUnion('kind', [messageTurnSchema, itemsTurnSchema]);

export const factSchema = z.object({
  id: z.string(),
  text: z.string(),
  aliases: z.array(z.string()),
  /** 1-based turn where the fact is first stated. */
  turn: z.number(),
  critical: z.boolean(),
  supersededBy: z.string().optional(),
  meta: metaSchema.optional(),
});

export const probeSchema = z.object({
  id: z.string(),
  /** 1-based: the probe is asked after this turn was replayed. */
  afterTurn: z.number(),
  question: z.string(),
  answer: z.string(),
  /** Every entry must appear in the reply; an entry lists alternatives (any of). */
  mustInclude: z.array(z.array(z.string())),
  facts: z.array(z.string()),
  kind: z.enum(PROBE_KINDS),
  /** `kind: tool` only: the call expected next, or null when the right move is to answer without calling a tool. */
  expectCall: expectedCallSchema.nullable().optional(),
  meta: metaSchema.optional(),
});

export const transcriptSchema = z.object({
  id: z.string(),
  title: z.string().optional(),
  tags: z.array(z.string()),
  system: z.string().optional(),
  /** Tools offered to the model with every probe (a model may call one instead of answering). */
  tools: z.array(toolDefinitionSchema).optional(),
  turns: z.array(turnSchema),
  facts: z.array(factSchema),
  probes: z.array(probeSchema),
  /** Path the transcript was loaded from (for error messages and reports). */
  file: z.string(),
  meta: metaSchema.optional(),
});
