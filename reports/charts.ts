// Inline SVG charts for report.html: no script, deterministic markup, every
// piece of run data through `esc`. Charts are drawn in a viewBox and stretch to
// the page width with CSS, so coordinates here are viewBox units, not pixels.
import { esc, num, pct } from './format.js';

// ---------- styles ----------

/**
 * Okabe–Ito: distinguishable under the common colour-vision deficiencies.
 * Yellow is last because it is the weakest against a white background.
 */
export const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
// Colour alone is not enough (greyscale print, similar hues): dashes and markers vary too,
// on cycles of different lengths so the (colour, dash, marker) triple repeats late.
const DASHES = ['', '8 4', '2 3', '10 3 2 3', '4 4', '12 4 2 4 2 4', '1 5'];
const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'triangle-down', 'ring'] as const;
type Shape = (typeof SHAPES)[number];

export interface SeriesStyle {
  color: string;
  dash: string;
  shape: Shape;
}

export function styleFor(index: number): SeriesStyle {
  return { color: PALETTE[index % PALETTE.length], dash: DASHES[index % DASHES.length], shape: SHAPES[index % SHAPES.length] };
}

/** A point marker in the series' shape; `attrs` carries class and stroke, `title` its tooltip. */
function marker(style: SeriesStyle, cx: number, cy: number, r: number, attrs: string, title: string): string {
  const x = cx.toFixed(1);
  const y = cy.toFixed(1);
  const fill = style.shape === 'ring' ? '#fff' : style.color;
  const paint = `fill="${fill}"${style.shape === 'ring' ? ` stroke="${style.color}" stroke-width="2"` : ''} ${attrs}`;
  const tip = title ? `<title>${esc(title)}</title>` : '';
  const poly = (pts: [number, number][]) => `<path d="M${pts.map(([a, b]) => `${(cx + a * r).toFixed(1)} ${(cy + b * r).toFixed(1)}`).join('L')}Z" ${paint}>${tip}</path>`;
  switch (style.shape) {
    case 'square':
      return `<rect x="${(cx - r * 0.85).toFixed(1)}" y="${(cy - r * 0.85).toFixed(1)}" width="${(r * 1.7).toFixed(1)}" height="${(r * 1.7).toFixed(1)}" ${paint}>${tip}</rect>`;
    case 'triangle':
      return poly([[0, -1.1], [1, 0.8], [-1, 0.8]]);
    case 'triangle-down':
      return poly([[0, 1.1], [1, -0.8], [-1, -0.8]]);
    case 'diamond':
      return poly([[0, -1.2], [1.1, 0], [0, 1.2], [-1.1, 0]]);
    default:
      return `<circle cx="${x}" cy="${y}" r="${r}" ${paint}>${tip}</circle>`;
  }
}

/** A small inline key (line in the series' dash, marker on it) for legends outside the charts. */
export function swatch(style: SeriesStyle): string {
  const dash = style.dash ? ` stroke-dasharray="${style.dash}"` : '';
  return `<svg class="sw" viewBox="0 0 30 12" width="30" height="12" aria-hidden="true"><path d="M1 6H29" stroke="${style.color}" stroke-width="2"${dash}/>${marker(style, 15, 6, 4, '', '')}</svg>`;
}

// ---------- scales and frames ----------

interface Frame {
  width: number;
  height: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

interface Scale {
  (v: number): number;
  ticks: number[];
}

/** Round tick values (1, 2, 5 × 10^k steps) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (max <= min) max = min + 1;
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = Math.floor(min / step) * step; t <= max + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}

/**
 * Ticks for an axis fitted to the data: the values' range plus a little padding,
 * kept inside [floor, ceil] (0–1 for rates), so a 16–28% spread is not squashed into 0–100%.
 */
export function fittedTicks(values: number[], floor = -Infinity, ceil = Infinity, count = 6): number[] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  // One value (or all equal): pad by a tenth of its size so the point sits mid-axis.
  const pad = hi > lo ? (hi - lo) * 0.08 : Math.abs(hi) * 0.1 || 0.5;
  return niceTicks(Math.max(floor, lo - pad), Math.min(ceil, hi + pad), count);
}

function linearScale(from: number, to: number, ticks: number[]): Scale {
  const lo = ticks[0];
  const hi = ticks[ticks.length - 1];
  const scale = ((v: number) => from + ((v - lo) / (hi - lo || 1)) * (to - from)) as Scale;
  scale.ticks = ticks;
  return scale;
}

function axes(f: Frame, x: Scale, y: Scale, xLabel: string, yLabel: string, xFormat: (v: number) => string, yFormat: (v: number) => string): string {
  const x0 = f.left;
  const y0 = f.height - f.bottom;
  const parts = [`<line x1="${x0}" y1="${y0}" x2="${f.width - f.right}" y2="${y0}" stroke="#57606a"/>`, `<line x1="${x0}" y1="${f.top}" x2="${x0}" y2="${y0}" stroke="#57606a"/>`];
  for (const t of x.ticks) {
    const px = x(t).toFixed(1);
    parts.push(`<line x1="${px}" y1="${y0}" x2="${px}" y2="${y0 + 4}" stroke="#57606a"/><text class="tick" x="${px}" y="${y0 + 16}" text-anchor="middle">${esc(xFormat(t))}</text>`);
  }
  for (const t of y.ticks) {
    const py = y(t).toFixed(1);
    parts.push(`<line x1="${x0}" y1="${py}" x2="${f.width - f.right}" y2="${py}" stroke="#eaeef2"/><text class="tick ytick" data-v="${t}" x="${x0 - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${esc(yFormat(t))}</text>`);
  }
  parts.push(`<text x="${(x0 + f.width - f.right) / 2}" y="${f.height - 6}" text-anchor="middle">${esc(xLabel)}</text>`);
  parts.push(`<text transform="translate(12 ${(f.top + y0) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  return parts.join('\n');
}

// No width/height attributes: CSS gives the chart the column's width and the viewBox keeps its aspect ratio.
function svg(f: Frame, label: string, content: string, cls = 'chart'): string {
  return `<svg class="${cls}" role="img" aria-label="${esc(label)}" viewBox="0 0 ${f.width} ${f.height}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">\n${content}\n</svg>`;
}

function pathD(points: [number, number][]): string {
  return points.map(([px, py], i) => `${i ? 'L' : 'M'}${px.toFixed(1)} ${py.toFixed(1)}`).join(' ');
}

// ---------- trade-off scatter ----------

export interface ScatterPoint {
  label: string;
  x: number;
  y: number;
  /** 95% interval of y, drawn as a whisker. */
  low?: number;
  high?: number;
  style?: SeriesStyle;
}

/** Points no other point beats on both axes (fewer tokens and higher accuracy), sorted by x. */
export function paretoFrontier(points: ScatterPoint[]): ScatterPoint[] {
  const dominated = (p: ScatterPoint) => points.some((q) => q !== p && q.x <= p.x && q.y >= p.y && (q.x < p.x || q.y > p.y));
  return points.filter((p) => !dominated(p)).sort((a, b) => a.x - b.x);
}

const SCATTER: Frame = { width: 960, height: 420, left: 64, right: 24, top: 20, bottom: 44 };

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

// Rough advance widths (em) of a common sans-serif at 11px; narrow and wide letters differ threefold,
// so a flat per-character width would stretch short labels visibly.
const NARROW = 'fijlrt.,:;!|\' ()[]-';
const WIDE = 'mwMW@%';
const FONT_PX = 11;
// For bar labels and counts, where a rough average is enough.
const CHAR_W = 6.6;

/**
 * Estimated label width. Labels are drawn with textLength set to it, so the box computed here is
 * the box the browser draws whatever font it picks, and collision checks hold in any browser.
 */
export function textWidth(text: string): number {
  let em = 0;
  for (const ch of text) em += NARROW.includes(ch) ? 0.32 : WIDE.includes(ch) ? 0.92 : ch >= 'A' && ch <= 'Z' ? 0.7 : 0.61;
  return Math.max(4, em * FONT_PX);
}
const LABEL_H = 14;
const GAP = 2;

function intersects(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w + GAP && b.x < a.x + a.w + GAP && a.y < b.y + b.h + GAP && b.y < a.y + a.h + GAP;
}

function inside(r: Rect, area: Rect): boolean {
  return r.x >= area.x && r.y >= area.y && r.x + r.w <= area.x + area.w && r.y + r.h <= area.y + area.h;
}

export interface LabelPlacement {
  x: number;
  y: number;
  anchor: 'start' | 'end' | 'middle';
  box: Rect;
  /** Set when the label sits away from its point and needs a line back to it. */
  leader?: [number, number, number, number];
}

// Directions tried around a point, nearest first: right, left, above, below, then the diagonals.
const DIRECTIONS: [number, number][] = [[1, 0], [-1, 0], [0, -1], [0, 1], [1, -1], [-1, -1], [1, 1], [-1, 1]];
const RADII = [9, 24, 42, 64, 92, 124];

function candidate(px: number, py: number, w: number, [dx, dy]: [number, number], r: number): LabelPlacement {
  const cx = px + dx * r * (dy ? 0.75 : 1);
  const cy = py + dy * r * (dx ? 0.75 : 1);
  const anchor = dx > 0 ? 'start' : dx < 0 ? 'end' : 'middle';
  const left = anchor === 'start' ? cx : anchor === 'end' ? cx - w : cx - w / 2;
  const top = dy < 0 ? cy - LABEL_H : dy > 0 ? cy : cy - LABEL_H / 2;
  const box = { x: left, y: top, w, h: LABEL_H };
  const place: LabelPlacement = { x: anchor === 'start' ? left : anchor === 'end' ? left + w : left + w / 2, y: top + 11, anchor, box };
  if (r > RADII[0]) place.leader = [px, py, Math.min(Math.max(px, left), left + w), Math.min(Math.max(py, top), top + LABEL_H)];
  return place;
}

/**
 * Deterministic label placement: each label, in order, takes the first position around its point
 * (nearest ring first) that stays in the plot and clears every marker and every label placed before it.
 * A label with no such position gets none (null); the legend table under the chart names every point.
 */
export function placeLabels(anchors: { px: number; py: number; text: string }[], area: Rect, markerR = 7): (LabelPlacement | null)[] {
  const taken: Rect[] = anchors.map((a) => ({ x: a.px - markerR, y: a.py - markerR, w: markerR * 2, h: markerR * 2 }));
  return anchors.map((a) => {
    const w = textWidth(a.text);
    for (const r of RADII) {
      for (const dir of DIRECTIONS) {
        const c = candidate(a.px, a.py, w, dir, r);
        if (inside(c.box, area) && !taken.some((t) => intersects(t, c.box))) {
          taken.push(c.box);
          return c;
        }
      }
    }
    return null;
  });
}

function whisker(x: number, yLow: number, yHigh: number, color: string): string {
  const px = x.toFixed(1);
  return `<path class="ci" d="M${px} ${yLow.toFixed(1)}V${yHigh.toFixed(1)}M${(x - 4).toFixed(1)} ${yLow.toFixed(1)}h8M${(x - 4).toFixed(1)} ${yHigh.toFixed(1)}h8" stroke="${color}" stroke-width="1.5" fill="none"/>`;
}

// Strategies at (nearly) the same x would draw their whiskers on top of each other; spread them 4 units apart.
function whiskerOffsets(xs: number[]): number[] {
  const groups = new Map<number, number[]>();
  xs.forEach((px, i) => {
    const key = Math.round(px / 4);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const out = xs.map(() => 0);
  for (const members of groups.values()) members.forEach((i, j) => (out[i] = (j - (members.length - 1) / 2) * 4));
  return out;
}

function labelText(p: LabelPlacement, text: string): string {
  const leader = p.leader ? `<line class="leader" x1="${p.leader[0].toFixed(1)}" y1="${p.leader[1].toFixed(1)}" x2="${p.leader[2].toFixed(1)}" y2="${p.leader[3].toFixed(1)}" stroke="#8c959f" stroke-width="1"/>` : '';
  const anchor = p.anchor === 'start' ? '' : ` text-anchor="${p.anchor}"`;
  return `${leader}<text class="label" x="${p.x.toFixed(1)}" y="${p.y.toFixed(1)}"${anchor} textLength="${p.box.w.toFixed(1)}" lengthAdjust="spacingAndGlyphs">${esc(text)}</text>`;
}

/**
 * Accuracy (y, with its 95% CI whisker) against mean context tokens (x), one marker per strategy;
 * both axes fitted to the data, the Pareto frontier dashed.
 */
export function scatterChart(points: ScatterPoint[]): string {
  const f = SCATTER;
  const x = linearScale(f.left, f.width - f.right, fittedTicks(points.map((p) => p.x), 0));
  const y = linearScale(f.height - f.bottom, f.top, fittedTicks(points.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y]), 0, 1));
  const frontier = paretoFrontier(points);
  const parts = [axes(f, x, y, 'mean context tokens per turn', 'probe accuracy (95% CI)', (v) => num(v), (v) => `${+(v * 100).toFixed(1)}%`)];
  parts.push(`<path class="frontier" d="${pathD(frontier.map((p) => [x(p.x), y(p.y)]))}" fill="none" stroke="#57606a" stroke-width="1.5" stroke-dasharray="5 4"/>`);
  const styles = points.map((p, i) => p.style ?? styleFor(i));
  const dodge = whiskerOffsets(points.map((p) => x(p.x)));
  points.forEach((p, i) => {
    if (p.low !== undefined && p.high !== undefined) parts.push(whisker(x(p.x) + dodge[i], y(p.low), y(p.high), styles[i].color));
  });
  points.forEach((p, i) => {
    const onFrontier = frontier.includes(p);
    const ci = p.low !== undefined ? ` [${pct(p.low)}, ${pct(p.high)}]` : '';
    const title = `${p.label}: ${pct(p.y)}${ci} at ${num(p.x)} tokens${onFrontier ? ' (Pareto frontier)' : ''}`;
    parts.push(marker(styles[i], x(p.x), y(p.y), onFrontier ? 6.5 : 5, `class="pt${onFrontier ? ' pareto' : ''}"${onFrontier && styles[i].shape !== 'ring' ? ' stroke="#1b1f24" stroke-width="1.5"' : ''}`, title));
  });
  // Frontier points are labelled first: they are the ones a reader looks for.
  const order = points.map((_, i) => i).sort((a, b) => Number(frontier.includes(points[b])) - Number(frontier.includes(points[a])) || a - b);
  const area = { x: f.left + 2, y: f.top, w: f.width - f.right - f.left - 2, h: f.height - f.bottom - f.top };
  const placed = placeLabels(order.map((i) => ({ px: x(points[i].x), py: y(points[i].y), text: points[i].label })), area);
  placed.forEach((p, k) => {
    if (p) parts.push(labelText(p, points[order[k]].label));
  });
  return svg(f, 'accuracy against mean context tokens', parts.join('\n'));
}

/** The scatter's key: every strategy with its marker, accuracy and CI, so a point whose label did not fit is still named. */
export function scatterLegend(points: ScatterPoint[]): string {
  const rows = points.map((p, i) => {
    const ci = p.low !== undefined ? ` <span class="muted">[${pct(p.low)}, ${pct(p.high)}]</span>` : '';
    return `<tr><td>${swatch(p.style ?? styleFor(i))} ${esc(p.label)}</td><td class="n">${pct(p.y)}${ci}</td><td class="n">${num(p.x)}</td></tr>`;
  });
  return `<table class="chart-key"><tr><th>strategy</th><th>accuracy [95% CI]</th><th>mean ctx tokens</th></tr>${rows.join('')}</table>`;
}

// ---------- context tokens per turn ----------

export interface Series {
  label: string;
  style: SeriesStyle;
  points: { turn: number; tokens: number; summarized: boolean }[];
}

/**
 * Strategies whose lines coincide point for point are drawn once, labelled with every name
 * ("full, trim-6 (identical)"): otherwise the last one drawn hides the others.
 */
export function mergeIdentical(series: Series[]): Series[] {
  const groups = new Map<string, Series[]>();
  for (const s of series) {
    const key = s.points.map((p) => `${p.turn}:${p.tokens}:${p.summarized ? 1 : 0}`).join(',');
    const group = groups.get(key);
    if (group) group.push(s);
    else groups.set(key, [s]);
  }
  return [...groups.values()].map((g) => (g.length === 1 ? g[0] : { ...g[0], label: `${g.map((s) => s.label).join(', ')} (identical)` }));
}

const SMALL: Frame = { width: 380, height: 210, left: 62, right: 10, top: 10, bottom: 34 };

export function turnTicks(maxTurn: number, count = 10): number[] {
  const step = Math.max(1, Math.ceil(maxTurn / count));
  const ticks: number[] = [];
  for (let t = 1; t <= maxTurn; t += step) ticks.push(t);
  // The last turn always gets a tick; a regular tick too close to it would overlap its label.
  if (ticks[ticks.length - 1] !== maxTurn) {
    if (ticks.length > 1 && maxTurn - ticks[ticks.length - 1] < step / 2 + 0.5) ticks.pop();
    ticks.push(maxTurn);
  }
  return ticks;
}

/** The shared y ticks for a set of small multiples, so equal heights mean equal token counts across charts. */
export function sharedTokenTicks(series: Series[][]): number[] {
  const max = series.flat().reduce((m, s) => s.points.reduce((mm, p) => Math.max(mm, p.tokens), m), 1);
  return niceTicks(0, max, 4);
}

/** One small multiple: context tokens per turn, a line per (merged) series; rings mark turns where a summary was made. */
/**
 * Point markers drawn per line at most (besides every summary ring): a 600-turn
 * benchmark conversation drew 600 per strategy, most of report.html, where the
 * line alone shows the shape at this size. Each marker carries its value on
 * hover. The plot is about 300 px wide, so 24 markers of 6 px stand apart;
 * 60 touched each other and were still 1.2 MB of a 28-transcript report.
 */
export const MAX_MARKERS = 24;

/** Whether the point at `i` of `n` gets a marker: all of a short line, every k-th and the last of a long one. */
export function markedPoint(i: number, n: number): boolean {
  if (n <= MAX_MARKERS) return true;
  return i === n - 1 || i % Math.ceil(n / MAX_MARKERS) === 0;
}

export function lineChart(title: string, series: Series[], yTicks: number[]): string {
  const f = SMALL;
  const maxTurn = series.flatMap((s) => s.points).reduce((m, p) => Math.max(m, p.turn), 2);
  const x = linearScale(f.left, f.width - f.right, turnTicks(maxTurn, 6));
  const y = linearScale(f.height - f.bottom, f.top, yTicks);
  const parts = [axes(f, x, y, 'turn', 'context tokens', (v) => String(v), (v) => num(v))];
  for (const s of series) {
    const dash = s.style.dash ? ` stroke-dasharray="${s.style.dash}"` : '';
    parts.push(`<path class="series" d="${pathD(s.points.map((p) => [x(p.turn), y(p.tokens)]))}" fill="none" stroke="${s.style.color}" stroke-width="2"${dash}><title>${esc(s.label)}</title></path>`);
    s.points.forEach((p, i) => {
      const cx = x(p.turn);
      const cy = y(p.tokens);
      if (markedPoint(i, s.points.length)) parts.push(marker(s.style, cx, cy, 3, 'class="pt"', `${s.label}, turn ${p.turn}: ${num(p.tokens)} tokens`));
      if (p.summarized) parts.push(`<circle class="summary-event" cx="${cx.toFixed(1)}" cy="${cy.toFixed(1)}" r="7" fill="none" stroke="${s.style.color}" stroke-width="1.5"><title>${esc(`${s.label}: summary made at turn ${p.turn}`)}</title></circle>`);
    });
  }
  return svg(f, title, parts.join('\n'));
}

/** Key for a set of charts: one entry per strategy, in its line style. */
export function legend(items: { label: string; style: SeriesStyle }[], note = ''): string {
  const entries = items.map((i) => `<span>${swatch(i.style)} ${esc(i.label)}</span>`);
  return `<div class="legend">${entries.join('')}${note ? ` <span class="muted">${esc(note)}</span>` : ''}</div>`;
}

// ---------- stacked bars and heat cells ----------

export interface BarRow {
  label: string;
  counts: number[];
}

const BAR: Frame = { width: 960, height: 0, left: 0, right: 60, top: 6, bottom: 6 };
const BAR_H = 18;
const BAR_GAP = 8;

/**
 * Horizontal stacked bars, one row per label, segments in `categories` order. All rows share one
 * scale (the largest total), so bar lengths compare across rows; the total is written at the end.
 */
export function stackedBars(title: string, rows: BarRow[], categories: readonly string[], colors: readonly string[]): string {
  const labelW = Math.min(220, Math.max(...rows.map((r) => r.label.length), 4) * CHAR_W + 12);
  const f = { ...BAR, left: labelW, height: BAR.top + BAR.bottom + rows.length * (BAR_H + BAR_GAP) };
  const max = Math.max(1, ...rows.map((r) => r.counts.reduce((a, b) => a + b, 0)));
  const unit = (f.width - f.left - f.right) / max;
  const parts = rows.map((r, i) => {
    const top = f.top + i * (BAR_H + BAR_GAP);
    let at = f.left;
    const segs = r.counts.map((n, c) => {
      if (n === 0) return '';
      const w = n * unit;
      const seg = `<rect class="seg" x="${at.toFixed(1)}" y="${top}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${colors[c]}"><title>${esc(`${r.label}: ${categories[c]} ${n}`)}</title></rect>`;
      const text = w >= String(n).length * CHAR_W + 6 ? `<text x="${(at + w / 2).toFixed(1)}" y="${top + 13}" text-anchor="middle" style="fill:${readableOn(colors[c])}">${n}</text>` : '';
      at += w;
      return seg + text;
    });
    const total = r.counts.reduce((a, b) => a + b, 0);
    const name = `<text x="${f.left - 6}" y="${top + 13}" text-anchor="end"${r.label.length * CHAR_W + 12 > labelW ? ` textLength="${(labelW - 12).toFixed(1)}" lengthAdjust="spacingAndGlyphs"` : ''}>${esc(r.label)}</text>`;
    return `${name}${segs.join('')}<text x="${(at + 4).toFixed(1)}" y="${top + 13}">${total}</text>`;
  });
  return svg(f, title, parts.join('\n'), 'chart bars');
}

/** The key of a stacked bar chart. */
export function categoryKey(categories: readonly string[], colors: readonly string[]): string {
  return `<div class="legend">${categories.map((c, i) => `<span><span class="swatch" style="background:${colors[i]}"></span>${esc(c)}</span>`).join('')}</div>`;
}

function channels(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Black or white text, whichever reads on `bg` (relative luminance against the WCAG midpoint). */
export function readableOn(bg: string): string {
  const [r, g, b] = channels(bg).map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.179 ? '#1b1f24' : '#ffffff';
}

// A single-hue blue ramp: order reads as lightness, which survives colour-vision deficiencies.
const HEAT_LO = channels('#f2f7fc');
const HEAT_HI = channels('#08306b');

/** Background for a rate in [0, 1]; the text colour is picked for contrast, so the figure stays readable. */
export function heatColor(value: number): string {
  const t = Math.min(1, Math.max(0, value));
  return `#${HEAT_LO.map((lo, i) => Math.round(lo + (HEAT_HI[i] - lo) * t).toString(16).padStart(2, '0')).join('')}`;
}

/** A table cell shaded by `value`; `text` is already-escaped markup. Missing values stay unshaded. */
export function heatCell(value: number | undefined, text: string): string {
  if (value === undefined || !Number.isFinite(value)) return `<td class="n">${text}</td>`;
  const bg = heatColor(value);
  return `<td class="n heat" style="background:${bg};color:${readableOn(bg)}">${text}</td>`;
}

// ---------- sweeps ----------

/** One point of a curve over a swept option; `low`/`high` the 95% interval of a rate. */
export interface CurvePoint {
  /** The swept value, written under its tick. */
  value: number;
  y: number;
  low?: number;
  high?: number;
  /** The strategy at this value, for the tooltip. */
  label: string;
}

export interface CurveSpec {
  title: string;
  /** The swept option, the x axis. */
  option: string;
  yLabel: string;
  /** A rate is drawn on a fitted 0–100% axis, a count from 0. */
  kind: 'rate' | 'count';
  /** The swept value to mark as the knee. */
  knee?: number;
  style: SeriesStyle;
}

/**
 * The x axis of a sweep: its values evenly spaced in order, each under its
 * tick. Sweeps mostly double (2, 4, 8, 16), which a linear axis would crowd
 * into its left end.
 */
function sweepScale(f: Frame, count: number): Scale {
  const scale = linearScale(f.left + 16, f.width - f.right - 16, [0, Math.max(1, count - 1)]);
  scale.ticks = [...Array(count).keys()];
  return scale;
}

/** A curve over a swept option: accuracy with its CI whiskers, or mean tokens; the knee a dashed vertical line. */
export function curveChart(spec: CurveSpec, points: readonly CurvePoint[]): string {
  const f = SMALL;
  const x = sweepScale(f, points.length);
  const ys = points.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y]);
  const y = linearScale(f.height - f.bottom, f.top, spec.kind === 'rate' ? fittedTicks(ys, 0, 1) : niceTicks(0, Math.max(1, ...ys), 4));
  const yFormat = spec.kind === 'rate' ? (v: number) => `${+(v * 100).toFixed(1)}%` : (v: number) => num(v);
  const parts = [axes(f, x, y, spec.option, spec.yLabel, (i) => String(points[i]?.value ?? ''), yFormat)];
  const kneeAt = points.findIndex((p) => p.value === spec.knee);
  if (kneeAt >= 0) {
    const px = x(kneeAt).toFixed(1);
    parts.push(`<line class="knee" x1="${px}" y1="${f.top}" x2="${px}" y2="${f.height - f.bottom}" stroke="#1b1f24" stroke-width="1" stroke-dasharray="4 3"><title>${esc(`knee: ${spec.option} = ${spec.knee}`)}</title></line>`);
    parts.push(`<text class="knee-label" x="${(x(kneeAt) + 4).toFixed(1)}" y="${f.top + 10}">knee</text>`);
  }
  const dash = spec.style.dash ? ` stroke-dasharray="${spec.style.dash}"` : '';
  parts.push(`<path class="series" d="${pathD(points.map((p, i) => [x(i), y(p.y)]))}" fill="none" stroke="${spec.style.color}" stroke-width="2"${dash}/>`);
  points.forEach((p, i) => {
    if (p.low !== undefined && p.high !== undefined) parts.push(whisker(x(i), y(p.low), y(p.high), spec.style.color));
    const ci = p.low !== undefined ? ` [${pct(p.low)}, ${pct(p.high)}]` : '';
    const shown = spec.kind === 'rate' ? `${pct(p.y)}${ci}` : `${num(p.y)} tokens`;
    parts.push(marker(spec.style, x(i), y(p.y), 4, 'class="pt"', `${p.label} (${spec.option} = ${p.value}): ${shown}`));
  });
  return svg(f, spec.title, parts.join('\n'));
}
