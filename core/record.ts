// A plain mapping (an object, not a list or null), as read from JSON or YAML
// before a schema has checked it.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
