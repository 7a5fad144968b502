// Raw `items:` turns: Agents SDK input items, checked with the SDK's own
// item schemas and kept verbatim. Two spellings are accepted beyond the SDK's:
// `call_id` (as pasted from the Responses API) for `callId`, and no `status`
// on an assistant message or a function_call_result (as the SDK's own
// runner writes them in examples).
import { createRequire } from 'node:module';
import type { AgentInputItem } from '@openai/agents';
import { z } from 'zod';
import { isRecord } from '../../core/record.js';
import { choiceTemplate, templateFor } from './issues.js';
import { list, report } from './fields.js';

type RawIssue = z.core.$ZodRawIssue;

const MESSAGE_ROLES = ['user', 'assistant', 'system'] as const;
/** Items the SDK's schema requires a `status` for, which transcripts may leave out. */
const STATUS_DEFAULTED = new Set(['message:assistant', 'function_call_result']);

interface ItemKinds {
  /** The SDK's schema for each item kind: `message:<role>` for messages, else the `type`. */
  schemas: Map<string, z.ZodType>;
  /** The kinds that are not messages, for "must be one of" messages. */
  types: string[];
}

let itemKinds: ItemKinds | undefined;

/**
 * The SDK's item schemas, loaded on the first `items:` turn, from the SDK's
 * `types` entry point alone (the same `ModelItem` that `@openai/agents`
 * exports as `protocol.ModelItem`): the whole package, with its MCP, realtime
 * and provider modules, takes 0.5 s to load, this entry 0.09 s, and most
 * transcripts have no raw items. The schema checks synchronously, so the
 * module is required (its CommonJS build), not imported.
 */
function kinds(): ItemKinds {
  if (itemKinds) return itemKinds;
  const { ModelItem } = createRequire(import.meta.url)('@openai/agents-core/types') as typeof import('@openai/agents-core/types');
  const schemas = new Map<string, z.ZodType>(
    ModelItem.options.map((option) => {
      const shape = option.shape as { type: z.ZodType; role?: z.ZodType };
      const role = shape.role ? [...(shape.role._zod.values ?? [])][0] : undefined;
      const type = role === undefined ? [...(shape.type._zod.values ?? [])][0] : undefined;
      return [role !== undefined ? `message:${String(role)}` : String(type), option as z.ZodType];
    }),
  );
  itemKinds = { schemas, types: [...schemas.keys()].filter((kind) => !kind.startsWith('message:')) };
  return itemKinds;
}

/** What a field must be, worded for the mistakes people make writing items by hand. */
const FIELD_PHRASES: Record<string, string> = {
  'function_call.arguments': 'a JSON string (quote it)',
  'message:user.content': 'text or a list of content parts',
  'message:assistant.content': 'a list of content parts',
};

/** Messages of the SDK's schema for `kind`, with the phrases above where a whole field has the wrong type. */
function itemError(kind: string): (iss: RawIssue) => string {
  return (iss) => {
    const phrase = iss.path?.length === 1 && iss.input !== undefined ? FIELD_PHRASES[`${kind}.${String(iss.path[0])}`] : undefined;
    return phrase ? `{label} must be ${phrase}, not {found}` : templateFor(iss);
  };
}

/** `message:user`, `function_call`, …; or a problem with `type` or `role`. */
function kindOf(item: Record<string, unknown>, rctx: z.core.$RefinementCtx): string | undefined {
  if (item.type === 'function_call_output') {
    report(rctx, {
      path: ['type'],
      message: '{label-1} has type "function_call_output" (a Responses API name); the Agents SDK item is "function_call_result" with "callId", "name" and "output"',
    });
    return undefined;
  }
  if (item.type !== undefined && item.type !== 'message') {
    const { schemas, types } = kinds();
    if (typeof item.type === 'string' && schemas.has(item.type)) return item.type;
    report(rctx, { path: ['type'], message: typeof item.type === 'string' ? choiceTemplate(types, item.type) : '{label} must be text, not {found}' });
    return undefined;
  }
  if (typeof item.role === 'string' && (MESSAGE_ROLES as readonly string[]).includes(item.role)) return `message:${item.role}`;
  report(rctx, { path: ['role'], message: item.role === undefined ? '{label-1} is missing "role"' : choiceTemplate(MESSAGE_ROLES, item.role) });
  return undefined;
}

/** The item with `call_id` renamed to `callId`; undefined (reported) when both are written. */
function withCallId(item: Record<string, unknown>, rctx: z.core.$RefinementCtx): Record<string, unknown> | undefined {
  if (!Object.hasOwn(item, 'call_id')) return item;
  if (Object.hasOwn(item, 'callId')) {
    report(rctx, { path: ['call_id'], message: '{label-1} has both "callId" and "call_id"; keep one' });
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    Object.defineProperty(out, key === 'call_id' ? 'callId' : key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Checks one item with the SDK's schema for its kind and keeps it as written (`call_id` renamed). */
const itemSchema: z.ZodType<AgentInputItem, unknown> = z.unknown().transform((value, rctx) => {
  if (!isRecord(value)) {
    report(rctx, { message: '{label} must be an Agents SDK item (a mapping with "role" or "type"), not {found}' });
    return z.NEVER;
  }
  if (value.role === undefined && value.type === undefined) {
    report(rctx, { message: '{label} needs "role" or "type"' });
    return z.NEVER;
  }
  const kind = kindOf(value, rctx);
  const item = withCallId(value, rctx);
  if (kind === undefined || item === undefined) return z.NEVER;
  const checked = STATUS_DEFAULTED.has(kind) && item.status === undefined ? { ...item, status: 'completed' } : item;
  const parsed = (kinds().schemas.get(kind) as z.ZodType).safeParse(checked, { error: itemError(kind) });
  if (parsed.success) return item as unknown as AgentInputItem;
  const renamed = item !== value;
  for (const issue of parsed.error.issues) {
    // Point at `call_id` where the file wrote that spelling.
    const path = renamed && issue.path[0] === 'callId' ? ['call_id', ...issue.path.slice(1)] : issue.path;
    rctx.addIssue({ ...issue, path } as z.core.$ZodSuperRefineIssue);
  }
  return z.NEVER;
});

export const itemsSchema = list(itemSchema, { nonEmpty: true });
