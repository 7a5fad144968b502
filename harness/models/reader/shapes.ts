// The shape of an argument value: what sort of token it is, read from how it is written. Values
// a parameter took in earlier calls tell the shape its next value has (an order id written
// `ABC-123` is not `Ravi`, a host `app-eu-17` is not a runbook id `RB-112`), so a candidate of
// another shape is not its value.

/** A value's shape: a class name, or for codes their letter/digit pattern (`A-9` for `ORD-58213`). */
export type Shape = string;

/** Prose: a value with spaces. A parameter that took prose takes any words. */
const PHRASE: Shape = 'phrase';

const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;
const URL_LIKE = /^[a-z][a-z\d+.-]*:\/\/\S+$/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const VERSION = /^v?\d+(?:\.\d+)+(?:[-+][\w.]+)?$/i;
// Lower-case words joined by `-`, `_` or `.` ("invoice-renderer", "checkout_svc"); ending in a number it is numbered ("app-eu-17").
const SLUG = /^[a-z][a-z\d]*(?:[-_.][a-z\d]+)+$/;
const NUMBERED_SLUG = /[-_.]\d+$/;

/** The letter/digit pattern of a code: runs of capitals `A`, small letters `a`, digits `9`, separators kept. */
function codePattern(value: string): string {
  return value
    .replace(/\p{Lu}+/gu, 'A')
    .replace(/\p{Ll}+/gu, 'a')
    .replace(/\d+/g, '9');
}

/** The shape of one written value. */
export function shapeOf(value: string): Shape {
  const v = value.trim();
  if (/\s/.test(v)) return PHRASE;
  if (EMAIL.test(v)) return 'email';
  if (URL_LIKE.test(v)) return 'url';
  if (ISO_DATE.test(v)) return 'date';
  if (VERSION.test(v)) return 'version';
  if (/^\d+$/.test(v)) return 'digits';
  if (SLUG.test(v)) return NUMBERED_SLUG.test(v) ? 'slug-numbered' : 'slug';
  if (/^\p{Ll}+$/u.test(v)) return 'word';
  if (/^\p{Lu}\p{Ll}+$/u.test(v)) return 'Word';
  if (/^\p{Lu}{2,4}$/u.test(v)) return 'CAPS';
  return `code:${codePattern(v)}`;
}

/** Whether a candidate has one of the shapes earlier values had; no earlier values, or prose among them, admit any. */
export function fitsShapes(value: string, shapes: ReadonlySet<Shape> | undefined): boolean {
  if (!shapes || shapes.size === 0 || shapes.has(PHRASE)) return true;
  return shapes.has(shapeOf(value));
}

/** The capital-letter prefix of a code ("LM" of `LM-20931`), which tells one kind of record from another. */
export function prefixOf(value: string): string | undefined {
  return /^(\p{Lu}{1,6})[-_]?\d/u.exec(value.trim())?.[1];
}
