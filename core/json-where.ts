// Where a value sits in a JSON text: the offset of the value at a path
// (object keys and array indexes), so a schema problem in a JSON file can be
// reported at its file:line:col rather than at the file alone. JSON is YAML
// 1.2, so the yaml package (the config's and transcripts' reader) keeps each
// node's range; only the error path pays for parsing the text again.
import { isNode, parseDocument } from 'yaml';

/**
 * The offset of the value at `path` in `text`; where a part of the path is missing
 * (a key the schema wants and the file lacks), the offset of the deepest value found.
 */
export function jsonValueOffset(text: string, path: readonly PropertyKey[]): number {
  const doc = parseDocument(text);
  let found = isNode(doc.contents) ? (doc.contents.range?.[0] ?? 0) : 0;
  for (let depth = 1; depth <= path.length; depth++) {
    const node: unknown = doc.getIn(path.slice(0, depth), true);
    if (!isNode(node) || !node.range) break;
    found = node.range[0];
  }
  return found;
}
