// A fast reader for the plain block YAML that datasets are written in (what
// harness/datasets/yaml-write.ts writes, and most hand-written files): block
// mappings with name keys, block lists, plain and single-line quoted scalars
// (double-quoted ones with the escapes \" \\ \/ \n \t), literal blocks (`|`,
// `|-`, with an indentation indicator or not), and flow collections on one
// line, nested or not. It builds only the plain data, in one pass over the
// lines, without the `yaml` package's document, node ranges or line counter,
// which valid input never needs.
//
// It gives up (returns undefined) on anything else, and on anything that could
// be a problem to report: comments, anchors and aliases, tags, flow
// collections over several lines, multi-line plain or quoted scalars, other
// escapes, tabs, control characters, duplicate keys, keys that are not names,
// an empty file, and collections near the `limits:` bounds. The caller then
// reads the text with the full reader (yaml-source.ts), which reports every
// problem with its position. So for any text it accepts, the data is the data
// the full reader builds (values, key order, and numbers' spellings through
// `spell`); test/harness/schema/yaml-fast.test.ts checks it on seeded mutations.
import type { CollectionLimits } from './yaml-document.js';

/** Records how a number or boolean at `container[key]` was written. */
export type Spell = (container: object, key: PropertyKey, source: string) => void;

/** Thrown inside the reader to give up; never escapes `fastPlain`. */
class GiveUp {}
const GIVE_UP = new GiveUp();

function giveUp(): never {
  throw GIVE_UP;
}

/**
 * Characters the fast reader leaves to the full one: tabs, carriage returns,
 * other C0 and C1 controls, DEL, line and paragraph separators, the BOM, the
 * non-characters U+FFFE/U+FFFF and unpaired surrogates.
 */
const UNUSUAL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]|[\ud800-\udfff]/u;
/** `name:` then a space or the end of the line; the name is what a plain key reads as text. */
const KEY = /([A-Za-z_][A-Za-z0-9_-]*):(?: +|$)/y;
/** Names that the core schema reads as null or a boolean, not as text. */
const NOT_TEXT_KEY = /^(?:~|[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
/** First characters of a value that are YAML syntax rather than plain text (quotes, `[`, `{` and `|` are read separately). */
const INDICATORS = new Set(['&', '*', '!', '>', '%', '@', '`', '{', '}', '[', ']', ',', '#']);
// The core schema's plain scalars (yaml's schema/core and schema/common), in its order of tests.
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
/** A literal block's header: `|`, with an indentation indicator or not, then `-` or nothing. */
const LITERAL_HEADER = /^\|([1-9])?(-)?$/;
/** Where a plain scalar in a flow collection ends. */
const FLOW_END = new Set([',', '[', ']', '{', '}']);
/**
 * A plain scalar a flow entry may be, as this reader takes it: no `#`, and a
 * `:` only before a character that is no space (`02:58`, not `k: v`, which
 * would make a pair). Quotes and backslashes after its first character are text.
 */
const FLOW_PLAIN = /^(?:[^#:]|:(?=[^ ]))*$/;
/** ` name: ` opening an entry of a flow mapping. */
const FLOW_KEY = /([A-Za-z_][A-Za-z0-9_-]*): +/y;
/** Deeper than this is left to the full reader, which bounds nesting (MAX_DEPTH 64). */
const MAX_FAST_DEPTH = 48;

/** A value read, with how it was written when that matters. */
interface Value {
  value: unknown;
  /** The plain scalar's text, for numbers and booleans. */
  source?: string;
}

/** A block value read, and where the text goes on. */
interface Read extends Value {
  /** The line after the value. */
  next: number;
}

class FastReader {
  private readonly lines: string[];
  private values = 0;

  constructor(
    text: string,
    private readonly limits: CollectionLimits,
    private readonly spell: Spell,
  ) {
    this.lines = text.split('\n');
  }

  document(): unknown {
    const first = this.nextContent(0);
    if (first >= this.lines.length || this.indentOf(first) !== 0) giveUp();
    const read = this.mapping(first, 0, 1);
    if (this.nextContent(read.next) < this.lines.length) giveUp();
    return read.value;
  }

  private indentOf(i: number): number {
    const line = this.lines[i];
    let n = 0;
    while (n < line.length && line.charCodeAt(n) === 32) n++;
    return n;
  }

  private blank(i: number): boolean {
    return this.indentOf(i) === this.lines[i].length;
  }

  /** The first line at or after `i` that is not blank; `lines.length` when there is none. */
  private nextContent(i: number): number {
    while (i < this.lines.length && this.blank(i)) i++;
    return i;
  }

  private dashAt(i: number, col: number): boolean {
    const line = this.lines[i];
    return line.charCodeAt(col) === 45 /* - */ && (col + 1 === line.length || line.charCodeAt(col + 1) === 32);
  }

  private keyAt(i: number, col: number): RegExpExecArray | null {
    KEY.lastIndex = col;
    return KEY.exec(this.lines[i]);
  }

  private countValue(): void {
    if (++this.values >= this.limits.max_values) giveUp();
  }

  /** A block node starting at column `col` of line `i`: a list or a mapping. */
  private block(i: number, col: number, depth: number): Read {
    if (this.dashAt(i, col)) return this.list(i, col, depth);
    if (this.keyAt(i, col)) return this.mapping(i, col, depth);
    return giveUp();
  }

  /**
   * Whether line `k` holds the next item of a block at column `col` (`starts`
   * says whether it opens one there); the block ends at the end of the text or
   * at a line less indented. A line more indented than the block's items, after
   * an item's value ended, is beyond what this reader takes on.
   */
  private continues(k: number, col: number, starts: () => boolean): boolean {
    if (k >= this.lines.length) return false;
    const indent = this.indentOf(k);
    if (indent > col) giveUp();
    return indent === col && starts();
  }

  /**
   * Counts a mapping's key `name` (its value with it), giving up on one this
   * reader does not take (a repeat, a key that is not text, `__proto__`, past
   * the key limit): the full parser reports those.
   */
  private takeKey(seen: Set<string>, name: string): void {
    if (seen.has(name) || NOT_TEXT_KEY.test(name) || name === '__proto__') giveUp();
    seen.add(name);
    if (seen.size >= this.limits.max_keys) giveUp();
    this.countValue();
  }

  /** A block list whose dashes are at column `col`; the first is on line `i`. */
  private list(i: number, col: number, depth: number): Read {
    if (depth > MAX_FAST_DEPTH) giveUp();
    const out: unknown[] = [];
    for (;;) {
      const line = this.lines[i];
      let j = col + 1;
      while (j < line.length && line.charCodeAt(j) === 32) j++;
      let read: Read;
      if (j === line.length) {
        const k = this.nextContent(i + 1);
        read = k < this.lines.length && this.indentOf(k) > col ? this.block(k, this.indentOf(k), depth + 1) : this.empty(i);
      } else {
        read = this.inline(i, j, col, depth + 1, true);
      }
      out.push(read.value);
      if (read.source !== undefined) this.spell(out, out.length - 1, read.source);
      const k = this.nextContent(read.next);
      if (!this.continues(k, col, () => this.dashAt(k, col))) return { value: out, next: k };
      i = k;
    }
  }

  /** A block mapping whose keys are at column `col`; the first is on line `i`. */
  private mapping(i: number, col: number, depth: number): Read {
    if (depth > MAX_FAST_DEPTH) giveUp();
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (;;) {
      const key = this.keyAt(i, col);
      if (!key) return giveUp();
      const name = key[1];
      this.takeKey(seen, name);
      const j = KEY.lastIndex;
      let read: Read;
      if (j === this.lines[i].length) {
        const k = this.nextContent(i + 1);
        const indent = k < this.lines.length ? this.indentOf(k) : -1;
        if (indent > col) read = this.block(k, indent, depth + 1);
        else if (indent === col && this.dashAt(k, col)) read = this.list(k, col, depth + 1);
        else read = this.empty(i);
      } else {
        read = this.inline(i, j, col, depth + 1, false);
      }
      out[name] = read.value;
      if (read.source !== undefined) this.spell(out, name, read.source);
      const k = this.nextContent(read.next);
      if (!this.continues(k, col, () => this.keyAt(k, col) !== null)) return { value: out, next: k };
      i = k;
    }
  }

  /** A key or dash with nothing after it: null. */
  private empty(i: number): Read {
    return { value: null, next: i + 1 };
  }

  /**
   * The value that starts at column `j` of line `i`, after `key: ` or `- `;
   * `parent` is the column of that key or dash. Only after a dash may it be a
   * mapping or another list (`- id: a`, `- - x`).
   */
  private inline(i: number, j: number, parent: number, depth: number, afterDash: boolean): Read {
    const line = this.lines[i];
    const ch = line[j];
    if (afterDash && this.dashAt(i, j)) return this.list(i, j, depth);
    if (afterDash && this.keyAt(i, j)) return this.mapping(i, j, depth);
    if (ch === '|') return this.literal(i, j, parent);
    let read: Read;
    if (ch === '"' || ch === "'") read = this.quoted(i, j);
    else if (ch === '[' || ch === '{') read = this.flow(i, j, depth);
    else read = this.plain(i, j);
    // A more indented line after a scalar would continue it (or be an error): the full reader decides.
    const k = this.nextContent(i + 1);
    if (k < this.lines.length && this.indentOf(k) > parent) giveUp();
    return read;
  }

  private plain(i: number, j: number): Read {
    const line = this.lines[i];
    const ch = line[j];
    if (INDICATORS.has(ch)) giveUp();
    if ((ch === '-' || ch === '?' || ch === ':') && (j + 1 === line.length || line.charCodeAt(j + 1) === 32)) giveUp();
    let end = line.length;
    while (end > j && line.charCodeAt(end - 1) === 32) end--;
    const text = line.slice(j, end);
    if (text.includes(': ') || text.includes(' #') || text.endsWith(':')) giveUp();
    return { ...this.scalar(text), next: i + 1 };
  }

  /** A plain scalar's value by the core schema (numbers and booleans with their spelling). */
  private scalar(text: string): Value {
    this.countValue();
    if (NULL.test(text)) return { value: null };
    if (BOOL.test(text)) return { value: text[0] === 't' || text[0] === 'T', source: text };
    if (INT_OCT.test(text)) giveUp();
    if (INT.test(text)) {
      if (text.length > 15) giveUp();
      return { value: parseInt(text, 10), source: text };
    }
    if (INT_HEX.test(text) || FLOAT_NAN.test(text) || FLOAT_EXP.test(text)) giveUp();
    if (FLOAT.test(text)) return { value: parseFloat(text), source: text };
    return { value: text };
  }

  /** `"..."` or `'...'` closed on its own line, with no escapes but `''`. */
  private quoted(i: number, j: number): Read {
    const line = this.lines[i];
    const { value, end } = readQuoted(line, j);
    for (let k = end; k < line.length; k++) if (line.charCodeAt(k) !== 32) giveUp();
    this.countValue();
    return { value, next: i + 1 };
  }

  /**
   * A flow collection, `[a, "b", 3]` or `{ k: v, aliases: [x, y] }`, opening at
   * column `j` of line `i`: nested ones included, and it must end its line.
   */
  private flow(i: number, j: number, depth: number): Read {
    const line = this.lines[i];
    const at = { pos: j };
    const value = this.flowCollection(line, at, depth);
    for (let k = at.pos; k < line.length; k++) if (line.charCodeAt(k) !== 32) giveUp();
    return { value, next: i + 1 };
  }

  /** The `[...]` or `{...}` at `at.pos` of `line`; `at.pos` is left after its closing bracket. */
  private flowCollection(line: string, at: { pos: number }, depth: number): unknown {
    if (depth > MAX_FAST_DEPTH) giveUp();
    const isList = line[at.pos] === '[';
    const close = isList ? ']' : '}';
    const list: unknown[] = [];
    const map: Record<string, unknown> = {};
    const seen = new Set<string>();
    at.pos = skipSpaces(line, at.pos + 1);
    if (line[at.pos] === close) {
      at.pos++;
      return isList ? list : map;
    }
    for (;;) {
      let name = '';
      if (!isList) {
        FLOW_KEY.lastIndex = skipSpaces(line, at.pos);
        const key = FLOW_KEY.exec(line);
        if (!key) giveUp();
        name = key[1];
        this.takeKey(seen, name);
        at.pos = FLOW_KEY.lastIndex;
      }
      const read = this.flowValue(line, at, depth + 1);
      if (isList) {
        list.push(read.value);
        if (read.source !== undefined) this.spell(list, list.length - 1, read.source);
      } else {
        map[name] = read.value;
        if (read.source !== undefined) this.spell(map, name, read.source);
      }
      at.pos = skipSpaces(line, at.pos);
      const ch = line[at.pos++];
      if (ch === close) return isList ? list : map;
      // A trailing or doubled comma, or anything else between entries, is the full reader's.
      if (ch !== ',' || line[skipSpaces(line, at.pos)] === close) giveUp();
    }
  }

  /** One entry's value at `at.pos` (spaces before it skipped): a nested collection, a quoted scalar, or a plain one up to `,` or a bracket. */
  private flowValue(line: string, at: { pos: number }, depth: number): Value {
    at.pos = skipSpaces(line, at.pos);
    const ch = line[at.pos];
    if (ch === '[' || ch === '{') {
      this.countValue();
      return { value: this.flowCollection(line, at, depth) };
    }
    if (ch === '"' || ch === "'") {
      const { value, end } = readQuoted(line, at.pos);
      at.pos = end;
      this.countValue();
      return { value };
    }
    let end = at.pos;
    while (end < line.length && !FLOW_END.has(line[end])) end++;
    const text = line.slice(at.pos, end).replace(/ +$/, '');
    at.pos = end;
    if (text === '' || !FLOW_PLAIN.test(text)) giveUp();
    if (INDICATORS.has(ch) || ch === '|' || ch === '?' || ch === ':' || (ch === '-' && (text.length === 1 || text[1] === ' '))) giveUp();
    return this.scalar(text);
  }

  /**
   * A `|` or `|-` block under a key or dash at column `parent`; its lines follow
   * line `i`. An indentation indicator (`|2`, `|2-`: a tool output whose lines
   * start with spaces) sets the content's column at `parent` plus it.
   */
  private literal(i: number, j: number, parent: number): Read {
    // The full reader refuses anything after the header, trailing spaces included.
    const header = LITERAL_HEADER.exec(this.lines[i].slice(j));
    if (!header) return giveUp();
    const strip = header[2] === '-';
    const first = this.nextContent(i + 1);
    if (first >= this.lines.length) giveUp();
    const indent = header[1] ? parent + Number(header[1]) : this.indentOf(first);
    if (indent <= parent || this.indentOf(first) < indent) giveUp();
    const parts: string[] = [];
    let k = i + 1;
    for (; k < this.lines.length; k++) {
      const line = this.lines[k];
      if (this.blank(k)) {
        // A blank line longer than the indentation holds spaces of content; rare enough to leave.
        if (line.length > indent) giveUp();
        parts.push('');
        continue;
      }
      if (this.indentOf(k) < indent) break;
      parts.push(line.slice(indent));
    }
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    this.countValue();
    const text = parts.join('\n');
    return { value: strip ? text : `${text}\n`, next: k };
  }
}

function skipSpaces(line: string, pos: number): number {
  while (line.charCodeAt(pos) === 32) pos++;
  return pos;
}

/** The escapes of a double-quoted scalar this reader reads; any other is the full reader's. */
const ESCAPES = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['n', '\n'],
  ['t', '\t'],
]);

/** The quoted scalar opening at `j` of `line` (closed on the line; no escapes but `''`, or those of ESCAPES), and the index after it. */
function readQuoted(line: string, j: number): { value: string; end: number } {
  return line[j] === '"' ? readDoubleQuoted(line, j) : readSingleQuoted(line, j);
}

function readSingleQuoted(line: string, j: number): { value: string; end: number } {
  let value = '';
  let at = j + 1;
  for (;;) {
    const close = line.indexOf("'", at);
    if (close < 0) giveUp();
    value += line.slice(at, close);
    if (line[close + 1] !== "'") return { value, end: close + 1 };
    value += "'";
    at = close + 2;
  }
}

function readDoubleQuoted(line: string, j: number): { value: string; end: number } {
  let value = '';
  let at = j + 1;
  for (let k = at; k < line.length; k++) {
    const ch = line[k];
    if (ch === '"') return { value: value + line.slice(at, k), end: k + 1 };
    if (ch !== '\\') continue;
    const escaped = ESCAPES.get(line[k + 1]);
    if (escaped === undefined) giveUp();
    value += line.slice(at, k) + escaped;
    k++;
    at = k + 1;
  }
  return giveUp();
}

/**
 * The plain data of `text` when it is written in the plain block style this
 * reader knows and is surely valid YAML within `limits`; undefined otherwise,
 * and the full reader must read it.
 */
export function fastPlain(text: string, limits: CollectionLimits, spell: Spell): unknown {
  if (UNUSUAL.test(text)) return undefined;
  try {
    return new FastReader(text, limits, spell).document();
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}
