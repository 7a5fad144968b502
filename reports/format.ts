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

export function num(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function pct(value: number | undefined): string {
  return value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;
}
