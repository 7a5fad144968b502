// The building blocks of the YAML schemas: zod types whose messages are the
// templates of issues.ts ("{label} must be a whole number, not {found}").
import { z } from 'zod';
import { isRecord } from '../../core/record.js';
import { quote } from '../../core/errors.js';
import { writtenText } from '../yaml-source.js';
import { choiceTemplate, unknownKeyLines } from './issues.js';

type RawIssue = z.core.$ZodRawIssue;
type Shape = Record<string, z.ZodType>;

/** `{label} must be <expected>, not {found}`; an absent key is left to the generic "is missing". */
export function typeError(expected: string): (iss: RawIssue) => string | undefined {
  return (iss) => (iss.input === undefined ? undefined : `{label} must be ${expected}, not {found}`);
}

/** Marks text fields, which take a plain number or boolean as the text it was written as (refinements keep the mark). */
const TEXT = z.registry<{ text: true }>();

function isText(schema: z.core.$ZodType): boolean {
  let current: z.core.$ZodType | undefined = schema;
  while (current) {
    if (TEXT.get(current)) return true;
    const def = current._zod.def as { innerType?: z.core.$ZodType; in?: z.core.$ZodType; options?: z.core.$ZodType[] };
    // A union that takes text (text or a list of it) takes numbers as written too.
    if (def.options) return def.options.some(isText);
    current = def.innerType ?? def.in;
  }
  return false;
}

/** Text; `answer: 3.10` is "3.10" (see `writtenText`). */
export function text(rule: { nonEmpty?: boolean } = {}): z.ZodString {
  const schema = z.string({ error: typeError('text') });
  TEXT.add(schema, { text: true });
  return rule.nonEmpty ? schema.refine((value) => value.trim() !== '', '{label} must not be empty') : schema;
}

/** Strictly a string (no number taken as text), for names and ids. */
export function word(): z.ZodString {
  return z.string({ error: typeError('text') });
}

export interface NumberRule {
  min?: number;
  max?: number;
}

function rangeProblem(value: number, rule: NumberRule): string | undefined {
  const { min, max } = rule;
  if ((min === undefined || value >= min) && (max === undefined || value <= max)) return undefined;
  const bounds = min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
  return `{label} must be ${bounds}, not ${value}`;
}

function numeric(whole: boolean, rule: NumberRule): z.ZodNumber {
  const kind = whole ? 'a whole number' : 'a number';
  // One check for both rules, so 0.5 for a whole number ≥ 1 is one problem, not two.
  return z.number({ error: typeError(kind) }).check((ctx) => {
    const problem = whole && !Number.isSafeInteger(ctx.value) ? `{label} must be ${kind}, not {found}` : rangeProblem(ctx.value, rule);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value, continue: true });
  });
}

export function int(rule: NumberRule = {}): z.ZodNumber {
  return numeric(true, rule);
}

export function number(rule: NumberRule = {}): z.ZodNumber {
  return numeric(false, rule);
}

export function bool(): z.ZodBoolean {
  return z.boolean({ error: typeError('true or false') });
}

/** One of fixed words, with a "did you mean" for a typo. */
export function choice<const T extends readonly [string, ...string[]]>(values: T): z.ZodEnum<{ [K in T[number]]: K }> {
  return z.enum(values, { error: (iss) => (iss.input === undefined ? undefined : choiceTemplate(values, iss.input)) });
}

/** Free-form user data under `meta:` (any mapping), kept as written. */
export function freeform(): z.ZodType<Record<string, unknown>> {
  // A type issue, not a refinement, so a union can tell "not a mapping" from "a mapping with a wrong field".
  return z.custom<Record<string, unknown>>().check((ctx) => {
    if (!isRecord(ctx.value)) ctx.issues.push({ code: 'invalid_type', expected: 'record', input: ctx.value });
  });
}

/** Replaces plain numbers and booleans at `keys` (all entries of a list: `null`) by the text they were written as. */
function respell(keys: readonly string[] | null): (value: unknown) => unknown {
  return (value) => {
    if (typeof value !== 'object' || value === null) return value;
    const source = value as Record<PropertyKey, unknown>;
    const targets: readonly PropertyKey[] = keys ?? (Array.isArray(value) ? value.map((_, i) => i) : []);
    let out: Record<PropertyKey, unknown> | unknown[] | undefined;
    for (const key of targets) {
      const item = source[key];
      if (typeof item !== 'number' && typeof item !== 'boolean') continue;
      out ??= Array.isArray(value) ? [...value] : { ...source };
      (out as Record<PropertyKey, unknown>)[key] = writtenText(value, key);
    }
    return out ?? value;
  };
}

export interface ListRule {
  nonEmpty?: boolean;
  /** The message when the list is empty (default: "{label} must not be an empty list"). */
  emptyMessage?: string;
}

export function list<T extends z.ZodType>(element: T, rule: ListRule = {}): z.ZodType<z.output<T>[], unknown> {
  let schema = z.array(element, { error: typeError('a list') });
  if (rule.nonEmpty) schema = schema.min(1, rule.emptyMessage ?? '{label} must not be an empty list');
  return isText(element) ? z.preprocess(respell(null), schema) : schema;
}

export interface MapRule {
  /** What the mapping is, for "must be X, not Y" (default: "a mapping"). */
  expected?: string;
  /** How unknown keys are named: "option" for a strategy's options. */
  noun?: string;
  /** Added after the mapping's label in unknown-key messages, e.g. " (use: trimming)". */
  context?: string;
}

/** A mapping with exactly the keys of `shape`; unknown keys are reported one by one with a suggestion. */
export function map<S extends Shape>(shape: S, rule: MapRule = {}): z.ZodType<z.output<z.ZodObject<S, z.core.$strict>>, unknown> {
  const allowed = Object.keys(shape);
  const object = z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys' ? unknownKeyLines(iss.keys, allowed, rule.noun, rule.context) : typeError(rule.expected ?? 'a mapping')(iss),
  });
  const textKeys = allowed.filter((key) => isText(shape[key]));
  return textKeys.length > 0 ? z.preprocess(respell(textKeys), object) : object;
}

/**
 * Runs a cross-field check only when the fields it reads are valid, however
 * the rest of the mapping fared, so one pass reports every problem.
 */
export function whenValid(...keys: string[]): { when: (payload: z.core.ParsePayload) => boolean } {
  return { when: (payload) => isRecord(payload.value) && !payload.issues.some((issue) => keys.includes(String(issue.path?.[0]))) };
}

/** A problem found by a check, at `path` below the checked value. */
export interface Found {
  path?: PropertyKey[];
  message: string;
  /** Point at the key instead of the value. */
  atKey?: boolean;
  /** Path (from the file's top) of an earlier place the message refers to as {first}. */
  first?: readonly PropertyKey[];
}

export function report(ctx: z.core.$RefinementCtx, found: Found): void {
  const params = { ...(found.atKey ? { at: 'key' } : {}), ...(found.first ? { first: found.first } : {}) };
  ctx.addIssue({ code: 'custom', path: found.path ?? [], message: found.message, params, input: undefined });
}

/**
 * Calls `duplicate` for every entry whose string `id` an earlier entry of the list already
 * has, with both positions.
 */
export function eachDuplicateId(entries: unknown[], duplicate: (id: string, at: number, first: number) => void): void {
  const first = new Map<string, number>();
  entries.forEach((entry, i) => {
    if (!isRecord(entry) || typeof entry.id !== 'string') return;
    const earlier = first.get(entry.id);
    if (earlier === undefined) first.set(entry.id, i);
    else duplicate(entry.id, i, earlier);
  });
}

/** Reports a second use of an id at that id, naming where the first one is; `listKey` is the list's key at the top of the file. */
export function uniqueIds(listKey: string, noun: string) {
  return [
    (entries: unknown[], rctx: z.core.$RefinementCtx<unknown[]>) =>
      eachDuplicateId(entries, (id, i, earlier) =>
        report(rctx, { path: [i, 'id'], message: `duplicate ${noun} id ${quote(id)} (first defined at {first})`, first: [listKey, earlier, 'id'] }),
      ),
    { when: (payload: z.core.ParsePayload) => Array.isArray(payload.value) },
  ] as const;
}

/**
 * Facts about the file being read (its strategy ids, its number of turns)
 * that checks compare against. Schemas are built once and reused, so these
 * are set for the length of one (synchronous) parse instead of baked in.
 */
export class Scope<C> {
  private current: C | undefined;

  get(): C {
    if (this.current === undefined) throw new Error('a scoped schema was used outside Scope.run');
    return this.current;
  }

  run<T>(context: C, parse: () => T): T {
    const outer = this.current;
    this.current = context;
    try {
      return parse();
    } finally {
      this.current = outer;
    }
  }
}
