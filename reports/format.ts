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

// toLocaleString builds a new Intl.NumberFormat on every call, a measurable
// share of rendering a large report; one formatter per digit count is reused.
const formatters = new Map<number, Intl.NumberFormat>();

function formatterFor(digits: number): Intl.NumberFormat {
  let formatter = formatters.get(digits);
  if (!formatter) {
    formatter = new Intl.NumberFormat('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
    formatters.set(digits, formatter);
  }
  return formatter;
}

export function num(value: number | undefined, digits = 0): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return formatterFor(digits).format(value);
}

export function pct(value: number | undefined): string {
  return value === undefined ? '–' : `${(value * 100).toFixed(1)}%`;
}
