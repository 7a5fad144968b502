// Reads a YAML file into nodes that remember where they came from, so every
// check of a transcript or config can point at `file:line:col`. Shared by
// harness/transcript.ts and harness/config.ts.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, visit } from 'yaml';
import type { Alias, Document, ParsedNode, Scalar, YAMLError, YAMLMap, YAMLSeq } from 'yaml';
import { positionOf, type Problem } from '../core/errors.js';

export type YNode = ParsedNode;

/** A file with thousands of syntax errors is one broken file; the first few say enough. */
const MAX_SYNTAX_PROBLEMS = 20;
/** Free-form values (meta, raw items, tool arguments) deeper than this are refused, not recursed into. */
const MAX_DEPTH = 64;
/** Caps values copied through aliases (a "billion laughs" file must not exhaust time or memory). */
const MAX_ALIASED_NODES = 10_000;

/** Plain English for what a node holds, for "must be X, not Y" messages. */
export function describe(node: YNode | null | undefined): string {
  if (node === null || node === undefined) return 'empty';
  if (isMap(node)) return 'a mapping';
  if (isSeq(node)) return 'a list';
  if (isAlias(node)) return 'an alias';
  const value = (node as Scalar).value;
  if (value === null || value === undefined) return 'empty';
  if (typeof value === 'number') return `the number ${(node as Scalar).source ?? String(value)}`;
  if (typeof value === 'boolean') return `${String(value)}`;
  return 'text';
}

/** Quotes a user value for a message, cut short so a pasted blob does not flood the terminal. */
export function quote(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}...` : flat);
}

/** Edit distance counting a swap of neighbouring letters as one edit ("titel" → "title"). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The closest known name to a misspelt one, if it is close enough to be a typo. */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(lower.length / 3)));
  if (bestDistance <= limit) return best;
  // A truncated name ("api_key" for "api_key_env") is a likely slip too.
  return lower.length >= 3 ? known.find((k) => k.toLowerCase().startsWith(lower)) : undefined;
}

/** The key written at `offset`: a quoted name, or the text up to its colon. */
function keyAt(text: string, offset: number): string {
  const rest = text.slice(offset, offset + 200);
  const quoted = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*')/.exec(rest);
  if (quoted) return quoted[1].slice(1, -1);
  return (/^[^\n]*?(?=:(?:\s|$)|,|}|\n|$)/.exec(rest)?.[0] ?? '').trim();
}

/** The parser's message, reworded where it names an API or leaves out the key. */
function syntaxMessage(err: YAMLError, text: string): string {
  switch (err.code) {
    case 'DUPLICATE_KEY':
      return `duplicate key ${quote(keyAt(text, err.pos[0]))} (each key may appear once in a mapping)`;
    case 'MULTIPLE_DOCS':
      return 'the file holds more than one YAML document (remove the extra "---")';
    case 'RESOURCE_EXHAUSTION':
      return 'the YAML is nested too deeply to read';
    default:
      return err.message;
  }
}

export class YamlSource {
  readonly problems: Problem[] = [];
  /** The document's top node (aliases resolved); null for an empty file. */
  readonly root: YNode | null;
  private readonly aliasTargets = new Map<Alias, YNode>();
  private aliasBudget = MAX_ALIASED_NODES;

  private constructor(
    readonly file: string,
    private readonly lines: LineCounter,
    doc: Document.Parsed | undefined,
  ) {
    if (doc) this.indexAnchors(doc);
    const contents = (doc?.contents ?? null) as YNode | null;
    this.root = contents === null ? null : this.resolve(contents);
  }

  /** Parses `text`; syntax errors become problems and leave `root` null. */
  static parse(text: string, file: string): YamlSource {
    const lines = new LineCounter();
    let doc: Document.Parsed;
    try {
      doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    } catch (e) {
      // The parser reports its own errors; this only guards against one it throws instead.
      const src = new YamlSource(file, lines, undefined);
      src.problems.push({ file, line: 1, col: 1, message: `could not read YAML: ${(e as Error).message}` });
      return src;
    }
    // Warnings (an unknown tag, an ambiguous alias) would otherwise change data silently.
    const errors = [...doc.errors, ...doc.warnings];
    if (errors.length === 0) return new YamlSource(file, lines, doc);
    const src = new YamlSource(file, lines, undefined);
    for (const err of errors.slice(0, MAX_SYNTAX_PROBLEMS)) {
      src.problems.push({ file, ...positionOf(lines, err.pos[0]), message: `YAML syntax error: ${syntaxMessage(err, text)}` });
    }
    const more = errors.length - MAX_SYNTAX_PROBLEMS;
    if (more > 0) {
      const next = errors[MAX_SYNTAX_PROBLEMS];
      src.problems.push({ file, ...positionOf(lines, next.pos[0]), message: `${more} more YAML syntax errors not shown` });
    }
    return src;
  }

  /** Maps each alias to the last anchor of its name before it, in one pass over the document. */
  private indexAnchors(doc: Document.Parsed): void {
    const anchors = new Map<string, YNode>();
    visit(doc, {
      Node: (_key, node) => {
        if (isAlias(node)) {
          const target = anchors.get(node.source);
          if (target) this.aliasTargets.set(node, target);
        } else if (node.anchor) {
          anchors.set(node.anchor, node as YNode);
        }
      },
    });
  }

  get ok(): boolean {
    return this.problems.length === 0;
  }

  /** Follows an alias to its anchored node; an alias with no anchor is reported and yields null. */
  resolve(node: YNode | null | undefined): YNode | null {
    if (node === null || node === undefined) return null;
    if (!isAlias(node)) return node;
    const target = this.aliasTargets.get(node);
    if (!target) {
      this.report(node, `alias *${node.source} has no anchor &${node.source} before it`);
      return null;
    }
    return target;
  }

  offsetOf(node: YNode | null | undefined): number {
    return node?.range?.[0] ?? 0;
  }

  pos(node: YNode | null | undefined): { line: number; col: number } {
    return positionOf(this.lines, this.offsetOf(node));
  }

  /** `file:line:col` of a node, for messages that refer to another place. */
  where(node: YNode | null | undefined): string {
    const { line, col } = this.pos(node);
    return `${this.file}:${line}:${col}`;
  }

  report(node: YNode | null | undefined, message: string): void {
    this.problems.push({ file: this.file, ...this.pos(node), message });
  }

  /**
   * A free-form value as plain JSON-like data. Refuses cycles, excessive
   * nesting and alias bombs with a problem instead of recursing forever.
   */
  plain(node: YNode | null | undefined, what: string): { ok: true; value: unknown } | { ok: false } {
    const before = this.problems.length;
    const value = this.toPlain(node, what, 0, new Set(), false);
    return this.problems.length === before ? { ok: true, value } : { ok: false };
  }

  private toPlain(raw: YNode | null | undefined, what: string, depth: number, open: Set<YNode>, aliased: boolean): unknown {
    if (raw === null || raw === undefined) return null;
    const node = this.resolve(raw);
    if (node === null) return null;
    // Nodes written out in the file are bounded by its size; only alias copies can multiply.
    const copied = aliased || isAlias(raw);
    if (copied && --this.aliasBudget < 0) {
      if (this.aliasBudget === -1) this.report(raw, `${what} expands to too many values through aliases`);
      return null;
    }
    if (isScalar(node)) return node.value ?? null;
    if (depth >= MAX_DEPTH) {
      this.report(raw, `${what} is nested more than ${MAX_DEPTH} levels deep`);
      return null;
    }
    if (open.has(node)) {
      this.report(raw, `${what} refers to itself through an alias`);
      return null;
    }
    open.add(node);
    try {
      if (isSeq(node)) return (node as YAMLSeq<YNode>).items.map((item) => this.toPlain(item, what, depth + 1, open, copied));
      return this.mapToPlain(node as YAMLMap<YNode, YNode>, what, depth, open, copied);
    } finally {
      open.delete(node);
    }
  }

  private mapToPlain(node: YAMLMap<YNode, YNode>, what: string, depth: number, open: Set<YNode>, aliased: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const key = this.resolve(pair.key);
      if (!key || !isScalar(key)) {
        this.report(pair.key ?? node, `${what} has a key that is not a plain name`);
        continue;
      }
      // defineProperty keeps a key such as "__proto__" an ordinary field.
      Object.defineProperty(out, String(key.value), {
        value: this.toPlain(pair.value, what, depth + 1, open, aliased),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
}

interface Entry {
  key: YNode;
  value: YNode | null;
}

export interface NumberRule {
  required?: boolean;
  min?: number;
  max?: number;
}

/**
 * Typed access to one YAML mapping. Each getter reports its own problems
 * (naming the key and `label`, e.g. `turn 3`) and returns undefined when the
 * value is unusable, so callers can keep going and collect every problem.
 */
export class MapReader {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly src: YamlSource,
    readonly node: YAMLMap.Parsed,
    readonly label: string,
  ) {
    for (const pair of node.items) {
      const key = src.resolve(pair.key as YNode | null);
      if (!key || !isScalar(key) || key.value === null || typeof key.value === 'object') {
        src.report((pair.key as YNode | null) ?? node, `${label} has a key that is not a plain name`);
        continue;
      }
      // Duplicate keys are a YAML syntax error already, so the first wins here.
      const name = String(key.value);
      if (!this.entries.has(name)) this.entries.set(name, { key: key as YNode, value: pair.value as YNode | null });
    }
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  keyNode(name: string): YNode | undefined {
    return this.entries.get(name)?.key;
  }

  /** The value node (aliases resolved); null for an empty value, undefined when the key is absent. */
  value(name: string): YNode | null | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    return this.src.resolve(entry.value);
  }

  /** Where to point for a key's value: the value itself, or the key when nothing was written after it. */
  at(name: string): YNode {
    const entry = this.entries.get(name);
    if (!entry) return this.node;
    const value = entry.value;
    if (!value || (isScalar(value) && value.value === null && !value.source)) return entry.key;
    return value;
  }

  /** Reports every key not in `allowed`, with a "did you mean" when one is close. */
  allow(allowed: readonly string[], noun = 'key', context = ''): void {
    for (const [name, entry] of this.entries) {
      if (allowed.includes(name)) continue;
      const guess = didYouMean(name, allowed);
      const hint = guess ? `did you mean "${guess}"?` : `expected one of: ${allowed.join(', ')}`;
      this.src.report(entry.key, `unknown ${noun} ${quote(name)} in ${this.label}${context} (${hint})`);
    }
  }

  missing(name: string): void {
    this.src.report(this.node, `${this.label} is missing "${name}"`);
  }

  wrongType(name: string, expected: string): void {
    this.src.report(this.at(name), `"${name}" in ${this.label} must be ${expected}, not ${describe(this.value(name))}`);
  }

  problem(name: string, message: string): void {
    this.src.report(this.at(name), message);
  }

  /**
   * Text. Plain numbers and booleans count as text in their source spelling
   * (`answer: 3.10` is "3.10"), since datasets quote numbers inconsistently.
   */
  string(name: string, rule: { required?: boolean; nonEmpty?: boolean } = {}): string | undefined {
    if (!this.has(name)) {
      if (rule.required) this.missing(name);
      return undefined;
    }
    const text = scalarText(this.value(name));
    if (text === undefined) {
      this.wrongType(name, 'text');
      return undefined;
    }
    if (rule.nonEmpty && text.trim() === '') {
      this.problem(name, `"${name}" in ${this.label} must not be empty`);
      return undefined;
    }
    return text;
  }

  /** Strictly a string value (no number coercion), for names and enums. */
  word(name: string, rule: { required?: boolean } = {}): string | undefined {
    if (!this.has(name)) {
      if (rule.required) this.missing(name);
      return undefined;
    }
    const node = this.value(name);
    if (!node || !isScalar(node) || typeof node.value !== 'string') {
      this.wrongType(name, 'text');
      return undefined;
    }
    return node.value;
  }

  number(name: string, rule: NumberRule = {}): number | undefined {
    return this.numeric(name, rule, false);
  }

  int(name: string, rule: NumberRule = {}): number | undefined {
    return this.numeric(name, rule, true);
  }

  private numeric(name: string, rule: NumberRule, whole: boolean): number | undefined {
    if (!this.has(name)) {
      if (rule.required) this.missing(name);
      return undefined;
    }
    const node = this.value(name);
    const value = node && isScalar(node) ? node.value : undefined;
    const kind = whole ? 'a whole number' : 'a number';
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.wrongType(name, kind);
      return undefined;
    }
    if (whole && !Number.isSafeInteger(value)) {
      this.problem(name, `"${name}" in ${this.label} must be ${kind}, not ${describe(node)}`);
      return undefined;
    }
    return checkRange(value, rule) ? value : this.outOfRange(name, value, rule);
  }

  private outOfRange(name: string, value: number, rule: NumberRule): undefined {
    const bounds =
      rule.min !== undefined && rule.max !== undefined
        ? `between ${rule.min} and ${rule.max}`
        : rule.min !== undefined
          ? `at least ${rule.min}`
          : `at most ${rule.max}`;
    this.problem(name, `"${name}" in ${this.label} must be ${bounds}, not ${value}`);
    return undefined;
  }

  boolean(name: string, rule: { required?: boolean } = {}): boolean | undefined {
    if (!this.has(name)) {
      if (rule.required) this.missing(name);
      return undefined;
    }
    const node = this.value(name);
    if (!node || !isScalar(node) || typeof node.value !== 'boolean') {
      this.wrongType(name, 'true or false');
      return undefined;
    }
    return node.value;
  }

  /** A list of text entries; a bad entry is reported at the entry. */
  stringList(name: string, rule: { nonEmptyEntries?: boolean } = {}): string[] | undefined {
    if (!this.has(name)) return undefined;
    const node = this.value(name);
    if (!node || !isSeq(node)) {
      this.wrongType(name, 'a list');
      return undefined;
    }
    const out: string[] = [];
    let ok = true;
    (node as YAMLSeq<YNode>).items.forEach((raw, i) => {
      const text = scalarText(this.src.resolve(raw));
      if (text === undefined) {
        this.src.report(raw ?? node, `entry ${i + 1} of "${name}" in ${this.label} must be text, not ${describe(this.src.resolve(raw))}`);
        ok = false;
      } else if (rule.nonEmptyEntries && text.trim() === '') {
        this.src.report(raw ?? node, `entry ${i + 1} of "${name}" in ${this.label} must not be empty`);
        ok = false;
      } else {
        out.push(text);
      }
    });
    return ok ? out : undefined;
  }

  /** A mapping value read with its own label, or undefined (reported) when it is not a mapping. */
  map(name: string, label: string): MapReader | undefined {
    if (!this.has(name)) return undefined;
    const node = this.value(name);
    if (!node || !isMap(node)) {
      this.wrongType(name, 'a mapping');
      return undefined;
    }
    return new MapReader(this.src, node as YAMLMap.Parsed, label);
  }

  /** List items of a key (aliases not yet resolved), or undefined (reported) when it is not a list. */
  list(name: string, rule: { required?: boolean; nonEmpty?: boolean } = {}): YNode[] | undefined {
    if (!this.has(name)) {
      if (rule.required) this.missing(name);
      return undefined;
    }
    const node = this.value(name);
    if (!node || !isSeq(node)) {
      this.wrongType(name, 'a list');
      return undefined;
    }
    const items = (node as YAMLSeq<YNode>).items;
    if (rule.nonEmpty && items.length === 0) {
      this.problem(name, `"${name}" in ${this.label} must not be an empty list`);
      return undefined;
    }
    return items;
  }

  /** The `meta:` block: any mapping, kept as plain data. */
  meta(): Record<string, unknown> | undefined {
    if (!this.has('meta')) return undefined;
    const node = this.value('meta');
    if (!node || !isMap(node)) {
      this.wrongType('meta', 'a mapping');
      return undefined;
    }
    const result = this.src.plain(node, `"meta" in ${this.label}`);
    return result.ok ? (result.value as Record<string, unknown>) : undefined;
  }
}

function checkRange(value: number, rule: NumberRule): boolean {
  if (rule.min !== undefined && value < rule.min) return false;
  if (rule.max !== undefined && value > rule.max) return false;
  return true;
}

/** Text of a scalar: strings as they are, plain numbers/booleans in their source spelling. */
export function scalarText(node: YNode | null | undefined): string | undefined {
  if (!node || !isScalar(node)) return undefined;
  const value = node.value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return node.source ?? String(value);
  return undefined;
}

/** The node as a mapping reader, or undefined (reported as `label must be a mapping`). */
export function readMap(
  src: YamlSource,
  raw: YNode | null | undefined,
  label: string,
  expected = 'a mapping',
  fallback?: YNode,
): MapReader | undefined {
  const node = src.resolve(raw);
  if (!node || !isMap(node)) {
    src.report(raw ?? fallback ?? null, `${label} must be ${expected}, not ${describe(node)}`);
    return undefined;
  }
  return new MapReader(src, node as YAMLMap.Parsed, label);
}

export { isMap, isScalar, isSeq };
