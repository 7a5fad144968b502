// Bad input is reported, never thrown as a stack trace: every problem of a
// file (or a whole suite) is collected and thrown once as an InputError.
// `didYouMean` is the one typo hint every message uses (config keys, strategy
// names, gate metrics), so it lives here where reports/ can reach it too.
import { redact } from './secrets.js';

/**
 * Exit codes of every command. 1 is left to Node for an unexpected crash, and
 * a failed gate is 100 (as promptfoo's failed tests) so a CI log can never
 * mistake a crash, bad input or a run that could not measure for a gate verdict.
 */
export const EXIT = { ok: 0, crashed: 1, badInput: 2, runFailed: 3, gateFailed: 100, interrupted: 130 } as const;

export interface Problem {
  file: string;
  /** 1-based; 0 when the problem concerns the whole file (e.g. it cannot be read). */
  line: number;
  /** 1-based; 0 together with `line`. */
  col: number;
  message: string;
}

/** `file:line:col: message`, or `file: message` for a whole-file problem. */
export function formatProblem(p: Problem): string {
  if (p.line < 1) return `${p.file}: ${p.message}`;
  return `${placeText(p)}: ${p.message}`;
}

/** `file:line:col` of a place, as messages that refer to another place write it. */
export function placeText(p: Pick<Problem, 'file' | 'line' | 'col'>): string {
  return `${p.file}:${p.line}:${Math.max(1, p.col)}`;
}

/** A problem at a place written by `placeText` (file names may contain colons); a whole-file problem of `fallbackFile` otherwise. */
export function problemAtPlace(place: string, message: string, fallbackFile = place): Problem {
  const m = /^(.*):(\d+):(\d+)$/.exec(place);
  return m ? { file: m[1], line: Number(m[2]), col: Number(m[3]), message } : fileProblem(fallbackFile, message);
}

/** Keeps files in first-seen order and sorts each file's problems by position, so output reads top to bottom. */
function orderProblems(problems: readonly Problem[]): Problem[] {
  const fileRank = new Map<string, number>();
  for (const p of problems) if (!fileRank.has(p.file)) fileRank.set(p.file, fileRank.size);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => {
      const byFile = (fileRank.get(a.p.file) ?? 0) - (fileRank.get(b.p.file) ?? 0);
      if (byFile !== 0) return byFile;
      if (a.p.line !== b.p.line) return a.p.line - b.p.line;
      if (a.p.col !== b.p.col) return a.p.col - b.p.col;
      return a.i - b.i;
    })
    .map(({ p }) => p);
}

/** A usage problem (a bad flag, a missing argument): one line, exit 2, no stack trace. */
export class UsageError extends Error {}

export class InputError extends Error {
  readonly problems: Problem[];

  constructor(problems: readonly Problem[]) {
    // Messages quote user input, which can be a pasted API key.
    const ordered = orderProblems(problems).map((p) => ({ ...p, message: redact(p.message) }));
    super(ordered.map(formatProblem).join('\n'));
    this.name = 'InputError';
    this.problems = ordered;
  }
}

export function isInputError(e: unknown): e is InputError {
  if (e instanceof InputError) return true;
  // A second copy of this module (e.g. a bundled CLI) still produces recognisable errors.
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { name?: unknown }).name === 'InputError' &&
    Array.isArray((e as { problems?: unknown }).problems)
  );
}

/** Line starts of `text`, for turning offsets into positions without a YAML parse. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** Anything that maps an offset to a 1-based position (the `yaml` package's LineCounter does). */
export interface PositionLookup {
  linePos(offset: number): { line: number; col: number };
}

/** 1-based line and column of `offset`; never below 1:1 even for empty text. */
export function positionOf(source: string | PositionLookup, offset: number): { line: number; col: number } {
  const at = Math.max(0, Math.floor(Number.isFinite(offset) ? offset : 0));
  if (typeof source !== 'string') {
    const pos = source.linePos(at);
    return { line: Math.max(1, pos.line), col: Math.max(1, pos.col) };
  }
  const starts = lineStarts(source);
  const end = Math.min(at, source.length);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= end) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: end - starts[lo] + 1 };
}

export function problemAt(file: string, source: string | PositionLookup, offset: number, message: string): Problem {
  return { file, ...positionOf(source, offset), message };
}

/** A problem about a whole file or a pattern, with no position inside it. */
export function fileProblem(file: string, message: string): Problem {
  return { file, line: 0, col: 0, message };
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
  const limit = Math.max(1, Math.min(3, Math.floor(lower.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    // Names whose lengths differ by more than the limit cannot be within it; skipping them
    // keeps a pasted blob of text in a key or a value from costing its length times every name.
    if (Math.abs(candidate.length - lower.length) > limit) continue;
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (bestDistance <= limit) return best;
  // A truncated name ("api_key" for "api_key_env") is a likely slip too.
  return lower.length >= 3 ? known.find((k) => k.toLowerCase().startsWith(lower)) : undefined;
}

/** Quotes a user value for a message, cut short so a pasted blob does not flood the terminal. */
export function quote(value: string): string {
  const flat = value.replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}...` : flat);
}
