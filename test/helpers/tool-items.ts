// Tool items for reader and strategy tests: a call with its result, and a
// parameters schema, as a transcript's turns and `tools:` give them.
import type { AgentInputItem } from '../../core/types.js';

/** A function_call and its function_call_result; an output that is not text is written as JSON, as a tool returns it. */
export function callPair(id: string, name: string, args: Record<string, unknown>, output: unknown): AgentInputItem[] {
  return [
    { type: 'function_call', callId: id, name, arguments: JSON.stringify(args) },
    { type: 'function_call_result', callId: id, name, status: 'completed', output: typeof output === 'string' ? output : JSON.stringify(output) },
  ] as AgentInputItem[];
}

/** A tool's JSON-Schema parameters: an object with these properties, `required` naming the ones it must have. */
export function objectSchema(properties: Record<string, unknown>, required: string[] = []): Record<string, unknown> {
  return { type: 'object', properties, required };
}
