// Text formatting shared by the HTML reports (report.html, diff.html and the
// sections other modules add to them). It imports nothing from reports/, so
// any report module can use it without an import cycle through html.ts.

/** Escapes text for element content and quoted attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };

/** The text of a fragment this module's templates built (tags dropped, `esc` undone), for the terminal and Markdown. */
export function textOf(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(?:lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e] ?? e);
}

/**
 * `value` with `digits` decimals and a comma between thousands ("12,345.6"),
 * as en-US writes it, rounding half away from zero on the decimal that
 * prints for the value (1.005 → "1.01", where toFixed gives "1.00"). A value
 * that rounds to zero has no minus sign. Not Intl.NumberFormat: the first one
 * a process builds loads ICU's locale data, 15 ms of every run's reports.
 */
export function num(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  const [whole, fraction] = roundedDigits(Math.abs(value), digits);
  const sign = value < 0 && (whole !== '0' || /[1-9]/.test(fraction)) ? '-' : '';
  const grouped = whole.length > 3 ? whole.replace(/\B(?=(\d{3})+$)/g, ',') : whole;
  return digits > 0 ? `${sign}${grouped}.${fraction}` : `${sign}${grouped}`;
}

/** The whole and fraction digits of `abs` (≥ 0) rounded to `digits` decimals. */
function roundedDigits(abs: number, digits: number): [whole: string, fraction: string] {
  const shortest = String(abs);
  // Exponent forms: below 1e-6 rounds to zero at any precision a report uses; 1e21 and above has no fraction.
  if (shortest.includes('e')) return abs < 1 ? ['0', '0'.repeat(digits)] : [BigInt(abs).toString(), '0'.repeat(digits)];
  const point = shortest.indexOf('.');
  if (point < 0) return [shortest, '0'.repeat(digits)];
  const whole = shortest.slice(0, point);
  const fraction = shortest.slice(point + 1);
  if (fraction.length <= digits) return [whole, fraction.padEnd(digits, '0')];
  const carry = fraction[digits] >= '5' ? 1 : 0;
  const kept = whole + fraction.slice(0, digits);
  // Up to 15 digits a double adds exactly; BigInt beyond.
  const sum = kept.length <= 15 ? String(Number(kept) + carry) : (BigInt(kept) + BigInt(carry)).toString();
  const text = sum.padStart(digits + 1, '0');
  return [text.slice(0, text.length - digits), text.slice(text.length - digits)];
}

export function pct(value: number | undefined): string {
  return value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;
}

/** `1 error`, `3 errors`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
