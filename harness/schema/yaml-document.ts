// Parses YAML text into one document for harness/yaml-source.ts, within the
// bounds of the suite config's `limits:`. The `yaml` package's own duplicate-key
// check compares every key with every earlier one of its mapping (quadratic:
// a 200,000-key `meta:` took minutes), so it is off and keys are checked here
// with a Set per mapping. A mapping with too many keys, or a file with too
// many values, is refused while the text is still being parsed: the package
// spends some microseconds and a kilobyte on every value, so a few megabytes
// of `[1,1,1,...]` would otherwise take a minute and gigabytes.
import { CST, Composer, Lexer, Parser, isAlias, isMap, isScalar, visit } from 'yaml';
import type { Alias, Document, LineCounter, ParsedNode, YAMLError, YAMLMap } from 'yaml';
import { quote } from '../../core/errors.js';
import { limitHint, type Limits } from './limits.js';

type YNode = ParsedNode;

/** How big one mapping, and one file, may be. */
export type CollectionLimits = Pick<Limits, 'max_keys' | 'max_values'>;

/** A problem found while reading, before any schema: bad syntax, a duplicate key, an oversized collection. */
export interface ReadError {
  offset: number;
  message: string;
}

export interface ReadDocument {
  /** Unset when the text was refused before the document was built. */
  doc?: Document.Parsed;
  /** Each alias and the anchored node it stands for (the last anchor of its name before it). */
  aliasTargets: Map<Alias, YNode>;
  /** In file order. */
  errors: ReadError[];
}

const NO_ALIASES = (): Map<Alias, YNode> => new Map();

/** Parses `text` (lines counted into `lines`) and checks keys and collection sizes. */
export function readDocument(text: string, lines: LineCounter, limits: CollectionLimits): ReadDocument {
  const guard = new SizeGuard(limits);
  let doc: Document.Parsed | undefined;
  const errors: ReadError[] = [];
  try {
    lines.addNewLine(0);
    const parser = new Parser(lines.addNewLine);
    for (const next of new Composer({ uniqueKeys: false }).compose(guardedTokens(text, parser, guard), true, text.length)) {
      if (doc) {
        errors.push({ offset: next.range[0], message: syntaxMessage('MULTIPLE_DOCS', '') });
        break;
      }
      doc = next;
    }
  } catch (e) {
    // The parser reports its own errors; this only guards against one it throws instead.
    return { aliasTargets: NO_ALIASES(), errors: [{ offset: 0, message: `could not read YAML: ${(e as Error).message}` }] };
  }
  if (guard.refused) return { aliasTargets: NO_ALIASES(), errors: [guard.refused] };
  if (!doc) return { aliasTargets: NO_ALIASES(), errors };
  // Warnings (an unknown tag, an ambiguous alias) would otherwise change data silently.
  for (const err of [...doc.errors, ...doc.warnings]) errors.push({ offset: err.pos[0], message: syntaxMessage(err.code, err.message) });
  const scan = scanDocument(doc, limits);
  errors.push(...scan.errors);
  return { doc, aliasTargets: scan.aliasTargets, errors: errors.sort((a, b) => a.offset - b.offset) };
}

/** The parser's message, reworded where it names an API. */
function syntaxMessage(code: YAMLError['code'], message: string): string {
  switch (code) {
    case 'MULTIPLE_DOCS':
      return 'YAML syntax error: the file holds more than one YAML document (remove the extra "---")';
    case 'RESOURCE_EXHAUSTION':
      return 'YAML syntax error: the YAML is nested too deeply to read';
    default:
      return `YAML syntax error: ${message}`;
  }
}

/** As `Parser.parse`, with a look at every token and the mappings being built; stops at the first bound passed. */
function* guardedTokens(text: string, parser: Parser, guard: SizeGuard): Generator<CST.Token> {
  for (const lexeme of new Lexer().lex(text)) {
    if (guard.tooManyValues(lexeme, parser.offset)) return;
    yield* parser.next(lexeme);
    // A mapping gains at most one key per line or per comma, so looking after those is enough.
    if ((lexeme === '\n' || lexeme === '\r\n' || lexeme === ',') && guard.overfull(parser.stack)) return;
  }
  yield* parser.end();
}

/** Quoted scalars are one lexeme; a plain one follows the lexer's scalar marker. */
function isValue(lexeme: string): boolean {
  return lexeme === CST.SCALAR || lexeme[0] === '"' || lexeme[0] === "'";
}

type CstItem = { start: CST.SourceToken[]; key?: CST.Token | null; sep?: CST.SourceToken[]; value?: CST.Token };

/**
 * Counts values and watches the parser's open mappings. Items are added to
 * the collection on top of the parser's stack (or just below it, under a
 * scalar being read), so looking at the top two after each token sees every
 * mapping as it grows. A mapping may hold one item more than its keys (a
 * trailing comment), so this refuses only when it is surely over;
 * `scanDocument` counts exactly.
 */
class SizeGuard {
  refused?: ReadError;
  private values = 0;

  constructor(private readonly limits: CollectionLimits) {}

  tooManyValues(lexeme: string, offset: number): boolean {
    if (!isValue(lexeme) || ++this.values <= this.limits.max_values) return false;
    this.refused = { offset, message: `the file has more than ${this.limits.max_values} values (${limitHint('max_values')})` };
    return true;
  }

  overfull(stack: readonly CST.Token[]): boolean {
    for (let i = stack.length - 1; i >= 0 && i >= stack.length - 2; i--) {
      const token = stack[i];
      const map = token.type === 'block-map' || (token.type === 'flow-collection' && token.start.source === '{');
      if (!map) continue;
      const items = token.items as CstItem[];
      if (items.length <= this.limits.max_keys + 1) continue;
      this.refused = { offset: itemOffset(items[this.limits.max_keys]) ?? token.offset, message: keysMessage(this.limits.max_keys) };
      return true;
    }
    return false;
  }
}

function itemOffset(item: CstItem): number | undefined {
  const token = item.key ?? item.value;
  return token && 'offset' in token ? token.offset : item.start[0]?.offset;
}

function keysMessage(bound: number): string {
  return `the mapping has more than ${bound} keys (${limitHint('max_keys')})`;
}

/** One pass over the document: aliases paired with their anchors, mapping sizes, then duplicate keys. */
function scanDocument(doc: Document.Parsed, limits: CollectionLimits): { aliasTargets: Map<Alias, YNode>; errors: ReadError[] } {
  const anchors = new Map<string, YNode>();
  const aliasTargets = new Map<Alias, YNode>();
  const maps: YAMLMap<YNode, YNode>[] = [];
  const errors: ReadError[] = [];
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        const target = anchors.get(node.source);
        if (target) aliasTargets.set(node, target);
      } else if (node.anchor) {
        anchors.set(node.anchor, node as YNode);
      }
      if (!isMap(node)) return;
      maps.push(node as YAMLMap<YNode, YNode>);
      const size = sizeError(node as YAMLMap<YNode, YNode>, limits);
      if (size) errors.push(size);
    },
  });
  // After the pass, so a key written as an alias finds an anchor set anywhere before it.
  for (const map of maps) errors.push(...duplicateKeys(map, aliasTargets));
  return { aliasTargets, errors };
}

function sizeError(map: YAMLMap<YNode, YNode>, limits: CollectionLimits): ReadError | undefined {
  if (map.items.length <= limits.max_keys) return undefined;
  const key = map.items[limits.max_keys].key;
  return { offset: key?.range?.[0] ?? map.range?.[0] ?? 0, message: keysMessage(limits.max_keys) };
}

/**
 * Every key of `map` an earlier key has, as its name reads (so `1:` and `"1":`,
 * which become the same field, are duplicates too). Keys that are not plain
 * names are left to the reader, which reports them.
 */
function duplicateKeys(map: YAMLMap<YNode, YNode>, aliasTargets: ReadonlyMap<Alias, YNode>): ReadError[] {
  const seen = new Set<string>();
  const errors: ReadError[] = [];
  for (const pair of map.items) {
    const key = pair.key && isAlias(pair.key) ? (aliasTargets.get(pair.key) ?? null) : pair.key;
    const name = keyName(key);
    if (name === undefined) continue;
    if (!seen.has(name)) seen.add(name);
    else errors.push({ offset: pair.key?.range?.[0] ?? map.range?.[0] ?? 0, message: `YAML syntax error: duplicate key ${quote(name)} (each key may appear once in a mapping)` });
  }
  return errors;
}

/** A mapping key usable as a name: text, a number or a boolean, never a list or an empty key. */
export function keyName(node: YNode | null | undefined): string | undefined {
  if (!node || !isScalar(node) || node.value === null || typeof node.value === 'object') return undefined;
  return String(node.value);
}
