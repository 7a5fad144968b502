// Reads a YAML file into plain data for a schema, keeping the document's
// nodes so every problem the schema finds can point at `file:line:col`.
// Shared by the config, transcript and calibration loaders (harness/schema/);
// the text is parsed, within the suite's `limits:`, by schema/yaml-document.ts.
import { LineCounter, isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Alias, Document, Pair, ParsedNode, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { placeText, positionOf, type Problem } from '../core/errors.js';
import { DEFAULT_LIMITS } from './schema/limits.js';
import { fastPlain } from './schema/yaml-fast.js';
import { keyName, readDocument, type CollectionLimits } from './schema/yaml-document.js';

export type YNode = ParsedNode;
/** A path into the data, as zod reports it: keys of mappings and indexes of lists. */
export type Path = readonly PropertyKey[];

/** A file with thousands of syntax errors is one broken file; the first few say enough. */
const MAX_SYNTAX_PROBLEMS = 20;
/** Values deeper than this are refused, not recursed into. */
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
  if (typeof value === 'string') return 'text';
  // A tag made it something else: `!!binary` bytes, a `!!timestamp` date.
  const tag = (node as Scalar).tag;
  return tag ? `a value tagged ${tag.replace(/^tag:yaml\.org,2002:/, '!!')}` : `a ${typeof value} value`;
}

/**
 * Plain numbers and booleans as written (`3.10`, `1e3`, `True`), by container
 * and key: a text field keeps the spelling, since datasets quote numbers
 * inconsistently and `answer: 3.10` means "3.10", not 3.1.
 */
const SPELLINGS = new WeakMap<object, Map<PropertyKey, string>>();

function recordSpelling(container: object, key: PropertyKey, source: string): void {
  const spellings = SPELLINGS.get(container) ?? new Map<PropertyKey, string>();
  spellings.set(key, source);
  SPELLINGS.set(container, spellings);
}

/**
 * The data of a file in plain block style (schema/yaml-fast.ts), as `data()`
 * would give it, without building the document; undefined when the file needs
 * the full reader (anything else, and anything it might have to report).
 */
export function fastData(text: string, limits: CollectionLimits = DEFAULT_LIMITS): unknown {
  return fastPlain(text, limits, recordSpelling);
}

/** How a number or boolean at `container[key]` was written, when the data came from a YAML file. */
function spellingOf(container: object, key: PropertyKey): string | undefined {
  return SPELLINGS.get(container)?.get(key);
}

/** Text as a text field reads it: a string, or a plain number or boolean as it was written (`spelling`, else its value). */
function asWritten(value: unknown, spelling: string | undefined): string | undefined {
  if (typeof value === 'string') return value;
  return typeof value === 'number' || typeof value === 'boolean' ? (spelling ?? String(value)) : undefined;
}

/** `container[key]` as a text field reads it (see `asWritten`); undefined for anything else. */
export function writtenText(container: object, key: PropertyKey): string | undefined {
  return asWritten((container as Record<PropertyKey, unknown>)[key], spellingOf(container, key));
}

/** Where a path leads in the document: the node, the key naming it, and whether the last key is absent. */
export interface Located {
  node: YNode | null;
  key?: YNode;
  /** The document ends before the path does: `node` is the last place on it (say, the mapping without the key). */
  missing: boolean;
}

/** Names a path for messages that the reader itself reports (aliases, nesting). */
export type PathLabel = (path: Path) => string;

export class YamlSource {
  readonly problems: Problem[] = [];
  /** The document's top node (aliases resolved); null for an empty file. */
  readonly root: YNode | null;
  private aliasBudget = MAX_ALIASED_NODES;
  /** Each mapping's pairs by key name, built when a path first looks into it (a lookup per issue must not scan the mapping). */
  private readonly keyIndex = new WeakMap<YAMLMap<YNode, YNode>, Map<string, Pair<YNode, YNode>>>();

  private constructor(
    readonly file: string,
    private readonly lines: LineCounter,
    doc: Document.Parsed | undefined,
    private readonly aliasTargets: ReadonlyMap<Alias, YNode>,
  ) {
    const contents = (doc?.contents ?? null) as YNode | null;
    this.root = contents === null ? null : this.resolve(contents);
  }

  /**
   * Parses `text`; syntax errors, duplicate keys and collections over
   * `limits` become problems and leave `root` null.
   */
  static parse(text: string, file: string, limits: CollectionLimits = DEFAULT_LIMITS): YamlSource {
    const lines = new LineCounter();
    const read = readDocument(text, lines, limits);
    if (read.errors.length === 0) return new YamlSource(file, lines, read.doc, read.aliasTargets);
    const src = new YamlSource(file, lines, undefined, read.aliasTargets);
    for (const err of read.errors.slice(0, MAX_SYNTAX_PROBLEMS)) src.problems.push({ file, ...positionOf(lines, err.offset), message: err.message });
    const more = read.errors.length - MAX_SYNTAX_PROBLEMS;
    if (more > 0) {
      const next = read.errors[MAX_SYNTAX_PROBLEMS];
      src.problems.push({ file, ...positionOf(lines, next.offset), message: `${more} more YAML syntax errors not shown` });
    }
    return src;
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

  /** Like `resolve`, for looking things up: an alias without anchor was reported when the data was read. */
  private peek(node: YNode | null | undefined): YNode | null {
    if (node === null || node === undefined) return null;
    return isAlias(node) ? (this.aliasTargets.get(node) ?? null) : node;
  }

  pos(node: YNode | null | undefined): { line: number; col: number } {
    return positionOf(this.lines, node?.range?.[0] ?? 0);
  }

  /** `file:line:col` of a node, for messages that refer to another place. */
  where(node: YNode | null | undefined): string {
    return placeText({ file: this.file, ...this.pos(node) });
  }

  report(node: YNode | null | undefined, message: string): void {
    this.problems.push({ file: this.file, ...this.pos(node), message });
  }

  /** Follows `path` from the top node as far as the document goes (`missing` when it ends early). */
  locate(path: Path): Located {
    let node = this.root;
    let key: YNode | undefined;
    for (const step of path) {
      const items = node && isSeq(node) ? (node as YAMLSeq<YNode>).items : undefined;
      if (items && typeof step === 'number' && step < items.length) {
        key = undefined;
        node = this.peek(items[step]);
        continue;
      }
      const pair = node && isMap(node) ? this.pairNamed(node as YAMLMap<YNode, YNode>, String(step)) : undefined;
      if (!pair) return { node, key, missing: true };
      key = pair.key ?? undefined;
      node = this.peek(pair.value);
    }
    return { node, key, missing: false };
  }

  /** The first pair of `map` whose key reads `name`. */
  private pairNamed(map: YAMLMap<YNode, YNode>, name: string): Pair<YNode, YNode> | undefined {
    let index = this.keyIndex.get(map);
    if (!index) {
      index = new Map();
      for (const pair of map.items) {
        const key = keyName(this.peek(pair.key));
        if (key !== undefined && !index.has(key)) index.set(key, pair);
      }
      this.keyIndex.set(map, index);
    }
    return index.get(name);
  }

  /** Text of the scalar at `path` (numbers as written), if there is one. */
  textAt(path: Path): string | undefined {
    const { node, missing } = this.locate(path);
    if (missing || !node || !isScalar(node)) return undefined;
    return asWritten(node.value, node.source);
  }

  /**
   * The whole document as plain JSON-like data. Refuses cycles, excessive
   * nesting and alias bombs with a problem (naming the place with `label`)
   * instead of recursing forever; the refused value reads as null.
   */
  data(label: PathLabel): unknown {
    return this.toPlain(this.root, [], label, new Set(), false);
  }

  private toPlain(raw: YNode | null | undefined, path: Path, label: PathLabel, open: Set<YNode>, aliased: boolean): unknown {
    if (raw === null || raw === undefined) return null;
    const node = this.resolve(raw);
    if (node === null) return null;
    // Nodes written out in the file are bounded by its size; only alias copies can multiply.
    const copied = aliased || isAlias(raw);
    if (copied && --this.aliasBudget < 0) {
      if (this.aliasBudget === -1) this.report(raw, `${label(path)} expands to too many values through aliases`);
      return null;
    }
    if (isScalar(node)) return node.value ?? null;
    if (path.length >= MAX_DEPTH) {
      this.report(raw, `${label(path)} is nested more than ${MAX_DEPTH} levels deep`);
      return null;
    }
    if (open.has(node)) {
      this.report(raw, `${label(path)} refers to itself through an alias`);
      return null;
    }
    open.add(node);
    try {
      if (isSeq(node)) return this.seqToPlain(node as YAMLSeq<YNode>, path, label, open, copied);
      return this.mapToPlain(node as YAMLMap<YNode, YNode>, path, label, open, copied);
    } finally {
      open.delete(node);
    }
  }

  private seqToPlain(node: YAMLSeq<YNode>, path: Path, label: PathLabel, open: Set<YNode>, aliased: boolean): unknown[] {
    const out = node.items.map((item, i) => this.toPlain(item, [...path, i], label, open, aliased));
    node.items.forEach((item, i) => this.keepSpelling(out, i, item));
    return out;
  }

  private mapToPlain(node: YAMLMap<YNode, YNode>, path: Path, label: PathLabel, open: Set<YNode>, aliased: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      const name = keyName(this.resolve(pair.key));
      if (name === undefined) {
        this.report(pair.key ?? node, `${label(path)} has a key that is not a plain name`);
        continue;
      }
      // YAML 1.1's merge key: without support it would read as a key named "<<" and its keys as missing.
      if (name === '<<' && isPlainKey(pair.key)) {
        this.report(pair.key ?? node, `${label(path)} uses a merge key (<<), which memeval does not read: write the keys out (an alias *name may still stand for a whole value)`);
        continue;
      }
      // defineProperty keeps a key such as "__proto__" an ordinary field.
      Object.defineProperty(out, name, {
        value: this.toPlain(pair.value, [...path, name], label, open, aliased),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.keepSpelling(out, name, pair.value);
    }
    return out;
  }

  private keepSpelling(container: object, key: PropertyKey, raw: YNode | null | undefined): void {
    const node = this.peek(raw);
    if (!node || !isScalar(node) || node.source === undefined) return;
    if (typeof node.value !== 'number' && typeof node.value !== 'boolean') return;
    recordSpelling(container, key, node.source);
  }
}

/** A key written as a plain scalar (`<<`), not quoted (`"<<"` is an ordinary key). */
function isPlainKey(key: unknown): boolean {
  return isScalar(key) && (key.type === 'PLAIN' || key.type === undefined);
}
