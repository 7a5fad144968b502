// Turns zod issues into `file:line:col: message` problems. The path of each
// issue is walked through the YAML document to the offending node; messages
// are templates whose placeholders name that place the way a user reads it
// ("turn 3", `"ratio" in strategy "w"`):
//   {label}    the place the issue is about      {label-1} … {label-3}  one to three levels up
//   {key}      the last key of the path, quoted  {found}               what the file holds there
//   {first}    file:line:col of `params.first`, a path (for "first defined at" messages)
// An issue with `params.at === 'key'` points at the key instead of its value.
import { isScalar } from 'yaml';
import type { z } from 'zod';
import { didYouMean, quote, type Problem } from '../../core/errors.js';
import { YamlSource, describe, fastData, type Located, type Path, type YNode } from '../yaml-source.js';
import type { CollectionLimits } from './yaml-document.js';

type RawIssue = z.core.$ZodRawIssue;
type Issue = z.core.$ZodIssue;

export interface LabelArgs {
  /** 1-based position when the path ends in a list index. */
  n: number;
  /** The last key of the path, unquoted. */
  key: string;
  /** The `id:` written in the mapping at the path, when it is non-empty text. */
  id?: string;
  /** The label `levels` steps up the path. */
  up(levels: number): string;
}

/** Names the places of one file format; `path` uses `#` for any list index and `*` for any key. */
export interface LabelRule {
  path: readonly string[];
  label(at: LabelArgs): string;
}

export interface YamlFormat {
  /** How messages name the whole file ("the config"). */
  root: string;
  rules: readonly LabelRule[];
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  tuple: 'a list',
  object: 'a mapping',
  record: 'a mapping',
};

/** Plain English for a type zod expected. */
function expectedPhrase(type: string): string {
  return EXPECTED[type] ?? type;
}

/**
 * The per-parse error map: a message template for every issue a schema did
 * not word itself, so plain zod schemas (core's, the Agents SDK's) read the
 * same as ours.
 */
export function templateFor(iss: RawIssue): string {
  if (iss.input === undefined) return '{label-1} is missing {key}';
  switch (iss.code) {
    case 'invalid_type':
      return `{label} must be ${expectedPhrase(iss.expected)}, not {found}`;
    case 'too_small':
      return tooSmall(iss);
    case 'too_big':
      return tooBig(iss);
    case 'invalid_value':
      return choiceTemplate(iss.values.map(String), iss.input);
    case 'unrecognized_keys':
      return unknownKeyLines(iss.keys, shapeKeys(iss.inst));
    case 'invalid_union':
      return iss.discriminator ? discriminatorTemplate(iss) : `{label} must be ${unionPhrase(iss.inst)}, not {found}`;
    default:
      return '{label} is not valid';
  }
}

function tooSmall(iss: Extract<RawIssue, { code: 'too_small' }>): string {
  if (iss.origin === 'array') return Number(iss.minimum) <= 1 ? '{label} must not be an empty list' : `{label} must have at least ${iss.minimum} entries`;
  if (iss.origin === 'string') return '{label} must not be empty';
  return `{label} must be ${bounds(iss.schema, 'at least', iss.minimum)}, not ${String(iss.input)}`;
}

function tooBig(iss: Extract<RawIssue, { code: 'too_big' }>): string {
  if (iss.origin === 'array') return `{label} must have at most ${iss.maximum} entries`;
  if (iss.origin === 'string') return `{label} must be at most ${iss.maximum} characters long`;
  return `{label} must be ${bounds(iss.schema, 'at most', iss.maximum)}, not ${String(iss.input)}`;
}

/** "between 0 and 1" when the schema has both bounds, else the one that failed. */
function bounds(schema: z.core.$ZodType | undefined, word: string, bound: number | bigint): string {
  const bag = schema?._zod.bag as { minimum?: number; maximum?: number } | undefined;
  if (bag?.minimum !== undefined && bag.maximum !== undefined) return `between ${bag.minimum} and ${bag.maximum}`;
  return `${word} ${bound}`;
}

/** `must be one of a, b, not "c"`, with a suggestion when "c" is a typo of one of them. */
export function choiceTemplate(choices: readonly string[], input: unknown): string {
  if (typeof input !== 'string') return `{label} must be one of ${choices.join(', ')}, not {found}`;
  const guess = didYouMean(input, choices);
  const hint = guess ? ` (did you mean "${guess}"?)` : '';
  return `{label} must be one of ${choices.join(', ')}, not ${quote(input)}${hint}`;
}

/**
 * One line per unknown key, in the order of `keys`; {label} names the mapping.
 * `noun` and `context` word it for a strategy's options ("unknown option ... (use: x)").
 */
export function unknownKeyLines(keys: readonly string[], allowed: readonly string[], noun = 'key', context = ''): string {
  return keys
    .map((key) => {
      const guess = didYouMean(key, allowed);
      const hint = guess ? `did you mean "${guess}"?` : `expected one of: ${allowed.join(', ')}`;
      return `unknown ${noun} ${quote(key)} in {label}${context} (${hint})`;
    })
    .join('\n');
}

/** A discriminated union whose tag names no option: the issue is at the tag (`type`, `role`). */
function discriminatorTemplate(iss: Extract<RawIssue, { code: 'invalid_union' }>): string {
  const tag = iss.discriminator === undefined || typeof iss.input !== 'object' || iss.input === null ? undefined : (iss.input as Record<string, unknown>)[iss.discriminator];
  if (tag === undefined) return '{label-1} is missing {key}';
  return choiceTemplate(((iss.options as unknown[] | undefined) ?? []).map(String), tag);
}

function shapeKeys(inst: RawIssue['inst']): string[] {
  const shape = (inst?._zod.def as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** "text or a list" for a union of text and lists. */
function unionPhrase(inst: RawIssue['inst']): string {
  const options = (inst?._zod.def as { options?: z.core.$ZodType[] } | undefined)?.options ?? [];
  const phrases = [...new Set(options.map((o) => expectedPhrase(o._zod.def.type)))];
  return phrases.length > 0 ? phrases.join(' or ') : 'something else';
}

/** Reads one file's issues back onto its YAML document. */
class IssueMapper {
  constructor(
    private readonly src: YamlSource,
    private readonly format: YamlFormat,
  ) {}

  /** The file as plain data; problems of the reader itself (aliases, nesting) are kept for `parse`. */
  data(): unknown {
    return this.src.data((path) => this.label(path));
  }

  /**
   * Checks `data` (from `data()`) with `schema`. The reader's problems and
   * the schema's are reported together, so a user sees every problem of the
   * file at once.
   */
  parse<T>(data: unknown, schema: z.ZodType<T, unknown>): SchemaResult<T> {
    const parsed = schema.safeParse(data, { error: templateFor });
    const problems = [...this.src.problems, ...(parsed.success ? [] : this.problems(parsed.error.issues))];
    return parsed.success && problems.length === 0 ? { ok: true, value: parsed.data } : { ok: false, problems };
  }

  problems(issues: readonly Issue[]): Problem[] {
    return issues.flatMap((issue) => this.problemsOf(issue));
  }

  private problemsOf(issue: Issue): Problem[] {
    const params = issue.code === 'custom' ? (issue.params as { at?: string; first?: Path } | undefined) : undefined;
    if (issue.code === 'unrecognized_keys') {
      const lines = issue.message.split('\n');
      return issue.keys.map((key, i) => this.problem(this.src.locate([...issue.path, key]), 'key', this.fill(lines[i] ?? lines[0], issue.path)));
    }
    const branch = issue.code === 'invalid_union' ? soleBranch(issue.errors) : undefined;
    if (branch) return this.problems(branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] })));
    const where = this.src.locate(issue.path);
    return [this.problem(where, params?.at === 'key' ? 'key' : 'value', this.fill(issue.message, issue.path, params?.first))];
  }

  private problem(where: Located, at: 'key' | 'value', message: string): Problem {
    return { file: this.src.file, ...this.src.pos(this.pointAt(where, at)), message };
  }

  /** The node to point at: a missing key's mapping, else the key or the value (the key when the value is empty). */
  private pointAt(where: Located, at: 'key' | 'value'): YNode | null {
    if (where.missing) return where.node;
    if (at === 'key' && where.key) return where.key;
    const empty = !where.node || (isScalar(where.node) && where.node.value === null && !where.node.source);
    return empty && where.key ? where.key : where.node;
  }

  /** `file:line:col` of the node a path leads to, pointed at as an issue there would be. */
  where(path: Path): string {
    return this.src.where(this.pointAt(this.src.locate(path), 'value'));
  }

  private fill(template: string, path: Path, first?: Path): string {
    return template.replace(/\{(label(?:-[1-3])?|key|found|first)\}/g, (_m, name: string) => {
      if (name === 'key') return JSON.stringify(String(path[path.length - 1] ?? ''));
      if (name === 'found') return describe(this.src.locate(path).node);
      if (name === 'first') return first ? this.where(first) : '';
      const levels = name === 'label' ? 0 : Number(name.slice('label-'.length));
      return this.label(path.slice(0, Math.max(0, path.length - levels)));
    });
  }

  /** How messages name the place at `path` ("turn 2", `"user" in turn 2`, "entry 3 of ..."). */
  label(path: Path): string {
    if (path.length === 0) return this.format.root;
    const last = path[path.length - 1];
    const rule = this.format.rules.find((r) => matches(r.path, path));
    if (rule) return rule.label(this.labelArgs(path));
    const parent = this.label(path.slice(0, -1));
    return typeof last === 'number' ? `entry ${last + 1} of ${parent}` : `${JSON.stringify(String(last))} in ${parent}`;
  }

  private labelArgs(path: Path): LabelArgs {
    const last = path[path.length - 1];
    const id = this.src.textAt([...path, 'id']);
    return {
      n: typeof last === 'number' ? last + 1 : 0,
      key: String(last),
      id: id !== undefined && id.trim() !== '' ? id : undefined,
      up: (levels) => this.label(path.slice(0, Math.max(0, path.length - levels))),
    };
  }
}

/**
 * The one option of a union that got past its type check (a list whose third
 * entry is wrong, say), whose issues say more than "must be text or a list".
 */
function soleBranch(branches: readonly (readonly Issue[])[]): readonly Issue[] | undefined {
  const typeFits = branches.filter((issues) => issues.length > 0 && !issues.some((i) => i.path.length === 0 && (i.code === 'invalid_type' || i.code === 'invalid_union')));
  return typeFits.length === 1 ? typeFits[0] : undefined;
}

function matches(pattern: readonly string[], path: Path): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((step, i) => (step === '#' ? typeof path[i] === 'number' : step === '*' ? typeof path[i] !== 'number' : step === String(path[i])));
}

/** The outcome of reading one YAML file against a schema: the value, or every problem found. */
export type SchemaResult<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/** How `readYaml` checks one file format. */
export interface YamlCheck<T, C> {
  format: YamlFormat;
  schema: z.ZodType<T, unknown>;
  /** Reports a file without content; each format words (and places) that problem its own way. */
  reportEmpty(src: YamlSource): void;
  /**
   * Facts the schema's checks compare against (a `Scope` of fields.ts),
   * read from the data before it is checked; `where` is `IssueMapper.where`.
   */
  facts?: { scope: { run<R>(context: C, parse: () => R): R }; of(data: unknown, where: (path: Path) => string): C };
  /** How big one mapping or list may be (default: DEFAULT_LIMITS). */
  limits?: CollectionLimits;
  /**
   * Try the fast reader first (schema/yaml-fast.ts): for a file it can read and
   * the schema accepts, the document is built only if `where` is called. Only
   * for formats whose checks call `where` just to word problems.
   */
  fast?: boolean;
}

/** A checked file; `where` names a place in it as a problem there would. */
export type YamlRead<T> = { ok: true; value: T; where: (path: Path) => string } | { ok: false; problems: Problem[] };

/** Reads YAML `text` and checks it against a schema: syntax problems, an empty file, or every problem the schema finds. */
export function readYaml<T, C = never>(text: string, file: string, check: YamlCheck<T, C>): YamlRead<T> {
  return (check.fast && readFast(text, file, check)) || readFull(text, file, check);
}

/**
 * The fast path: plain data without a document, checked by the schema. Any
 * problem (the reader gives up, or the schema finds one) sends the file down
 * the full path, which finds and places every problem; so does a call of
 * `where`, which builds the document once.
 */
function readFast<T, C>(text: string, file: string, check: YamlCheck<T, C>): YamlRead<T> | undefined {
  const data = fastData(text, check.limits);
  if (data === undefined) return undefined;
  let mapper: IssueMapper | undefined;
  const where = (path: Path): string => {
    mapper ??= new IssueMapper(YamlSource.parse(text, file, check.limits), check.format);
    return mapper.where(path);
  };
  const parse = () => check.schema.safeParse(data, { error: templateFor });
  const parsed = check.facts ? check.facts.scope.run(check.facts.of(data, where), parse) : parse();
  return parsed.success ? { ok: true, value: parsed.data, where } : undefined;
}

function readFull<T, C>(text: string, file: string, check: YamlCheck<T, C>): YamlRead<T> {
  const src = YamlSource.parse(text, file, check.limits);
  if (!src.ok) return { ok: false, problems: src.problems };
  if (src.root === null) {
    check.reportEmpty(src);
    return { ok: false, problems: src.problems };
  }
  const mapper = new IssueMapper(src, check.format);
  const where = (path: Path) => mapper.where(path);
  const data = mapper.data();
  const parse = () => mapper.parse(data, check.schema);
  const result = check.facts ? check.facts.scope.run(check.facts.of(data, where), parse) : parse();
  return result.ok ? { ok: true, value: result.value, where } : result;
}
