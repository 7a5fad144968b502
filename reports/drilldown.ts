// The failures section of report.html: one row per probe (transcript × probe ×
// repeat) that failed or errored in at least one strategy, every strategy's
// outcome and answer side by side, with filters and a search.
//
// Size is the constraint that shapes it. The same transcript messages recur in
// many contexts (a full-history context at turn 20 holds the one at turn 10), so
// each distinct message is rendered once in a message list and a context is a
// list of ranges over it; a small inline script copies the messages in when a
// context is opened. Without the script the page still reads top to bottom: the
// filters stay hidden and a context names its messages by their number in the list.
import { createHash } from 'node:crypto';
import { PROBE_KINDS } from '../core/types.js';
import { callText } from '../core/items.js';
import { CONTEXTS_FILE, contextOf, toRanges, type ContextLookup, type ContextMessage } from '../core/contexts.js';
import { oncePerObject } from '../core/memo.js';
import type { Attribution, ProbeKind, ProbeRecord, RunResult } from '../core/types.js';
import { ATTRIBUTIONS, isProbeError, probeErrorStage, strategyIds } from './aggregate.js';
import { esc, num } from './format.js';

/** Rows the report shows; a larger run gets the full list in a sidecar file. */
export const DRILLDOWN_LIMIT = 500;

/** Sidecar file beside report.html holding every row when the report shows only the first DRILLDOWN_LIMIT. */
export const DRILLDOWN_SIDECAR = 'failures.html';

/** One probe as every strategy answered it. */
export interface FailureGroup {
  transcript: string;
  probe: string;
  kind: ProbeKind;
  repeat: number;
  afterTurn: number;
  question: string;
  reference: string;
  /** Records in strategy order; a strategy that did not answer this probe has none. */
  records: ProbeRecord[];
}

/** How one strategy did on one probe, as a filter reads it. */
export type ProbeOutcome = { kind: 'passed' } | { kind: 'failed'; cause: Attribution | 'unattributed' } | { kind: 'error'; stage: string };

export function probeOutcome(p: ProbeRecord): ProbeOutcome {
  // An errored probe may carry passed: false; it is an error of its stage, not a wrong answer.
  if (isProbeError(p)) return { kind: 'error', stage: probeErrorStage(p) ?? 'answer' };
  if (p.passed === true) return { kind: 'passed' };
  return { kind: 'failed', cause: p.attribution ?? 'unattributed' };
}

function outcomeText(o: ProbeOutcome): string {
  if (o.kind === 'passed') return 'passed';
  if (o.kind === 'failed') return `failed: ${o.cause}`;
  return `error (${o.stage})`;
}

function outcomeClass(o: ProbeOutcome): string {
  return o.kind === 'passed' ? 'ok' : o.kind === 'failed' ? 'bad' : 'warn';
}

/** The cause a filter matches: an error counts under `error` whatever attribution it carries. */
function causeOf(o: ProbeOutcome): string | undefined {
  if (o.kind === 'failed') return o.cause;
  return o.kind === 'error' ? 'error' : undefined;
}

const groupKey = (p: ProbeRecord): string => `${p.transcript}\u0000${p.probe}\u0000${p.repeat}`;

/**
 * Probes that failed or errored in at least one strategy, in transcript order
 * (as the run lists its transcripts), then by the turn they follow, then in the
 * run's probe order, the repeats of a probe together.
 */
export function failureGroups(run: RunResult): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  const firstSeen = new Map<string, number>();
  for (const p of run.probes) {
    const probeKey = `${p.transcript}\u0000${p.probe}`;
    if (!firstSeen.has(probeKey)) firstSeen.set(probeKey, firstSeen.size);
    const key = groupKey(p);
    const group = groups.get(key);
    if (group) group.records.push(p);
    else groups.set(key, { transcript: p.transcript, probe: p.probe, kind: p.kind, repeat: p.repeat, afterTurn: p.afterTurn, question: p.question, reference: p.reference, records: [p] });
  }
  const order = new Map(strategyIds(run).map((id, i) => [id, i]));
  const transcripts = new Map(run.info.transcripts.map((t, i) => [t.id, i]));
  const rank = (t: string) => transcripts.get(t) ?? transcripts.size;
  const failing = [...groups.values()].filter((g) => g.records.some((p) => p.passed !== true));
  for (const g of failing) g.records.sort((a, b) => (order.get(a.strategy) ?? 0) - (order.get(b.strategy) ?? 0));
  const seen = (g: FailureGroup) => firstSeen.get(`${g.transcript}\u0000${g.probe}`) ?? 0;
  return failing.sort((a, b) => rank(a.transcript) - rank(b.transcript) || a.afterTurn - b.afterTurn || seen(a) - seen(b) || a.repeat - b.repeat);
}

// ---------- contexts, each rendered once ----------

/** Every distinct message once, numbered from 1, and every distinct context as ranges over them. */
interface ContextIndex {
  messages: { role: string; text: string }[];
  contexts: { ranges: [number, number][]; messages: number; tokens: number }[];
  /** Context number (from 1) of each record that has one. */
  byRecord: Map<ProbeRecord, number>;
  /** Records that name a stored context the run directory lacks (contexts.jsonl missing or cut short). */
  unresolved: number;
}

function contextKey(p: ProbeRecord, context: ContextMessage[]): string {
  // A stored context's ref is already a digest of its messages; a copy (older runs) is digested here.
  // The token count is part of the key because the context's heading states it; the messages are shared anyway.
  return `${p.contextTokens} ${p.contextRef ?? createHash('sha256').update(JSON.stringify(context)).digest('base64')}`;
}

/** Only a failed or errored record's context is shown (the lookup is told these refs, and the index reads them). */
function showsContext(p: ProbeRecord): boolean {
  return p.passed !== true;
}

/**
 * The contexts of the failed and errored records. A run stores every probe's
 * context, but the passing ones would add a third to report.html at the
 * default suite's size; diff.html shows both sides of a flip instead.
 */
function indexContexts(groups: FailureGroup[], lookup: ContextLookup | undefined): ContextIndex {
  const index: ContextIndex = { messages: [], contexts: [], byRecord: new Map(), unresolved: 0 };
  // A stored context's messages are the lookup's own objects, one per stored message: keyed by
  // the object, a large run's texts are not copied into keys. A record's own copy (runs before
  // the store) has objects of its own, so those are keyed by role and text.
  const storedIds = new Map<ContextMessage, number>();
  const copiedIds = new Map<string, number>();
  const contextIds = new Map<string, number>();
  const numbered = (m: ContextMessage): number => {
    index.messages.push(m);
    return index.messages.length;
  };
  const storedId = (m: ContextMessage): number => {
    let id = storedIds.get(m);
    if (id === undefined) storedIds.set(m, (id = numbered(m)));
    return id;
  };
  const copiedId = (m: ContextMessage): number => {
    const key = `${m.role}\u0000${m.text}`;
    let id = copiedIds.get(key);
    if (id === undefined) copiedIds.set(key, (id = numbered(m)));
    return id;
  };
  for (const p of groups.flatMap((g) => g.records)) {
    const context = showsContext(p) ? contextOf(p, lookup) : undefined;
    if (showsContext(p) && context === undefined && p.contextRef !== undefined) index.unresolved++;
    if (!context?.length) continue;
    const key = contextKey(p, context);
    let id = contextIds.get(key);
    if (id === undefined) {
      index.contexts.push({ ranges: toRanges(context.map(p.context ? copiedId : storedId)), messages: context.length, tokens: p.contextTokens });
      contextIds.set(key, (id = index.contexts.length));
    }
    index.byRecord.set(p, id);
  }
  return index;
}

/**
 * Escapes text for element content only: `&` and `<` (and `>` for tidiness). Quotes
 * need no escaping there, and skipping them keeps the many message texts smaller;
 * attribute values still go through `esc`.
 */
export function escText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const rangeText = ([a, b]: [number, number]): string => (a === b ? `#${a}` : `#${a}–#${b}`);

function contextBlock(id: number, c: ContextIndex['contexts'][number]): string {
  const title = `context #${id}: ${c.messages} messages, ${num(c.tokens)} tokens`;
  // The paragraph is what a reader without the script follows (the list numbers its messages); the script
  // reads the ranges from it and shows the messages instead. Numbers rather than links: links cost more than the contexts.
  return `<details id="dc${id}"><summary>${esc(title)}</summary><p>messages ${c.ranges.map(rangeText).join(', ')}</p></details>`;
}

function* messageList(messages: ContextIndex['messages']): Generator<string> {
  yield `<details id="dd-msgs"><summary>${esc(`message list (${messages.length} distinct messages the contexts are made of)`)}</summary>`;
  // Number and role are shown by CSS (a counter and data-r), which saves an id and a wrapper element per message.
  for (const m of messages) yield `<pre data-r="${esc(m.role)}">${escText(m.text)}</pre>`;
  yield '</details>';
}

function* contextsPart(index: ContextIndex): Generator<string> {
  // Said, not left as bare dashes: the reader should know the run directory lost them, not that none were sent.
  if (index.unresolved > 0) yield `<p class="warn">${esc(`${index.unresolved} failed answers name a context that ${CONTEXTS_FILE} does not hold (the file is missing or was cut short); they show – under "context sent".`)}</p>`;
  if (!index.contexts.length) return;
  const note = 'Each distinct context is listed once and a row links to the one each strategy sent. A context names its messages by number in the message list below; with scripts on, opening it shows them in place.';
  yield `<h3 id="dd-contexts">Contexts sent (${index.contexts.length} distinct)</h3><p class="muted">${esc(note)}</p><div class="dd-ctxs">`;
  for (let i = 0; i < index.contexts.length; i++) yield contextBlock(i + 1, index.contexts[i]);
  yield '</div>';
  yield* messageList(index.messages);
}

// ---------- rows ----------

/** What every row is rendered against: the strategy and cause orders the filters index, and the contexts. */
interface Frame {
  ids: string[];
  causes: string[];
  transcripts: string[];
  index: ContextIndex;
  /** Whether any probe ran more than once; a run of one repeat does not say `repeat 1` on every row. */
  repeats: boolean;
}

/**
 * Adjacent equal cells become one cell spanning them: strategies that gave the
 * same answer read as one, and the report does not repeat the text.
 */
export function mergeCells(cells: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < cells.length; ) {
    let span = 1;
    while (i + span < cells.length && cells[i + span] === cells[i]) span++;
    out.push(span > 1 ? cells[i].replace(/^<td/, `<td colspan="${span}"`) : cells[i]);
    i += span;
  }
  return out.join('');
}

const ROWS = ['answer', 'judge', 'tool call', 'answerable', 'context sent'] as const;

/** Cells that tell nothing by themselves; a row made only of them is left out to keep the report small. */
const SILENT = new Set(['<td>–</td>', '<td>yes</td>']);

/**
 * A tool probe's expected call against the calls made (`expected get_order ·
 * made get_order({"id":"A-17"})`), or just the calls of any other probe that
 * made some; `–` otherwise, so a run without tools shows no such row.
 */
export function toolCallText(p: ProbeRecord): string {
  const made = (p.toolCalls ?? []).map(callText).join('; ');
  if (!p.tool) return made ? `made ${made}` : '–';
  const expected = p.tool.expected === null ? 'expected no call' : `expected ${p.tool.expected}`;
  return `${expected} · made ${made || (isProbeError(p) ? 'nothing (errored)' : 'no call')}`;
}

/** The cells of one strategy, in ROWS order. */
function recordCells(p: ProbeRecord | undefined, index: ContextIndex): string[] {
  if (!p) return ROWS.map(() => '<td>not run</td>');
  const ctx = index.byRecord.get(p);
  // The outcome already says pass or fail; the judge's reason is what it adds.
  // An answer call that errored has no verdict; its error stands in the answer cell.
  const judge = p.judge ? (p.judge.verdict === 'fail' ? p.judge.reason : p.judge.verdict === 'pass' ? 'pass' : `error: ${p.judge.reason}`) : '–';
  // Whether the context held every fact the probe needs, naming the ones it did not: the strategy lost it, or the reader missed it.
  const answerable = p.answerable === null ? 'unknown (names no facts)' : p.answerable ? 'yes' : `no: missing ${p.factsMissing.join(', ') || 'a needed fact'}`;
  return [
    `<td>${escText(p.answer ?? p.error ?? '–')}</td>`,
    `<td>${escText(judge || '–')}</td>`,
    `<td>${escText(toolCallText(p))}</td>`,
    `<td>${escText(answerable)}</td>`,
    // Runs record the context of failed probes only.
    ctx ? `<td><a href="#dc${ctx}">${escText(`${num(p.contextTokens)} tokens`)}</a></td>` : '<td>–</td>',
  ];
}

interface Column {
  strategies: string[];
  cls: string;
  cells: string[];
}

/**
 * One column per distinct behaviour: strategies whose outcome, answer, verdict,
 * missing facts and context are all the same share a column headed by all their
 * names. Passing strategies usually give the same answer, so a row is mostly a
 * passed column beside the failures, and the report does not repeat them.
 */
function columnsOf(g: FailureGroup, f: Frame): Column[] {
  const byStrategy = new Map(g.records.map((p) => [p.strategy, p]));
  const columns = new Map<string, Column>();
  for (const id of f.ids) {
    const p = byStrategy.get(id);
    const o = p && probeOutcome(p);
    const cls = o && o.kind !== 'passed' ? outcomeClass(o) : '';
    const cells = recordCells(p, f.index);
    const key = `${o ? outcomeText(o) : 'not run'}\u0000${cells.join('')}`;
    const column = columns.get(key);
    if (column) column.strategies.push(id);
    else columns.set(key, { strategies: [id], cls, cells });
  }
  return [...columns.values()];
}

function comparison(g: FailureGroup, f: Frame): string {
  const columns = columnsOf(g, f);
  const head = columns.map((c) => `<th${c.cls ? ` class="${c.cls}"` : ''}>${escText(c.strategies.join(', '))}</th>`);
  const rows = ROWS.flatMap((label, i) => {
    const cells = columns.map((c) => c.cells[i]);
    // A row that says nothing for any strategy (every context answerable, none recorded) is left out.
    if (i > 0 && cells.every((c) => SILENT.has(c))) return [];
    // The answer row is marked so the search can read answers without the other cells.
    return [`<tr${i === 0 ? ' class="dd-a"' : ''}><th>${label}</th>${mergeCells(cells)}</tr>`];
  });
  return `<table><tr><th></th>${head.join('')}</tr>${rows.join('')}</table>`;
}

/** `full, budget-2k passed; trim-6 failed: trimmed`: strategies with the same outcome named together, in strategy order. */
export function outcomeLine(records: ProbeRecord[]): string {
  const byOutcome = new Map<string, { cls: string; strategies: string[] }>();
  for (const p of records) {
    const o = probeOutcome(p);
    const text = outcomeText(o);
    const entry = byOutcome.get(text);
    if (entry) entry.strategies.push(p.strategy);
    else byOutcome.set(text, { cls: outcomeClass(o), strategies: [p.strategy] });
  }
  return [...byOutcome].map(([text, e]) => `<span class="${e.cls}">${escText(`${e.strategies.join(', ')} ${text}`)}</span>`).join('; ');
}

/** Filter keys of a row: `strategy.cause` index pairs of every strategy that did not pass, so both filters match the same strategy. */
function failKeys(g: FailureGroup, f: Frame): string {
  return g.records
    .flatMap((p) => {
      const cause = causeOf(probeOutcome(p));
      return cause ? [`${f.ids.indexOf(p.strategy)}.${f.causes.indexOf(cause)}`] : [];
    })
    .join(' ');
}

function groupRow(g: FailureGroup, f: Frame): string {
  const title = `${g.transcript} · ${g.probe} (${g.kind})${f.repeats ? ` · repeat ${g.repeat}` : ''} · after turn ${g.afterTurn}`;
  const summary = `<summary><b>${escText(title)}</b> — ${outcomeLine(g.records)}<q>${escText(g.question)}</q><span class="dd-ref">reference: ${escText(g.reference)}</span></summary>`;
  // Transcripts by index: ids are long and repeated on every row.
  const attrs = `data-t="${f.transcripts.indexOf(g.transcript)}" data-k="${esc(g.kind)}" data-f="${failKeys(g, f)}"`;
  return `<details ${attrs}>${summary}${comparison(g, f)}</details>`;
}

// ---------- filters ----------

/** `[value, label]` options with how many rows each would show. */
function select(name: string, label: string, options: [string, string, number][]): string {
  const items = options.map(([value, text, n]) => `<option value="${esc(value)}">${escText(`${text} (${n})`)}</option>`).join('');
  return `<label>${escText(label)} <select name="${name}"><option value="">all</option>${items}</select></label>`;
}

/** Options for the values in `rows` (one entry per row a value occurs in), in the order of `order`, valued by index or by name. */
function options(order: readonly string[], rows: string[][], byIndex: boolean): [string, string, number][] {
  const counts = new Map<string, number>();
  for (const vs of rows) for (const v of new Set(vs)) counts.set(v, (counts.get(v) ?? 0) + 1);
  return order.flatMap((v, i) => (counts.has(v) ? [[byIndex ? String(i) : v, v, counts.get(v) as number] as [string, string, number]] : []));
}

/** Filter bar: hidden until the script shows it, so a page without scripts shows no dead controls. */
function filterBar(groups: FailureGroup[], f: Frame): string {
  const failing = groups.map((g) => g.records.filter((p) => causeOf(probeOutcome(p)) !== undefined));
  const controls = [
    select('s', 'strategy failed', options(f.ids, failing.map((ps) => ps.map((p) => p.strategy)), true)),
    select('c', 'cause', options(f.causes, failing.map((ps) => ps.map((p) => causeOf(probeOutcome(p)) as string)), true)),
    select('k', 'probe kind', options(PROBE_KINDS, groups.map((g) => [g.kind]), false)),
    select('t', 'transcript', options(f.transcripts, groups.map((g) => [g.transcript]), true)),
    '<label>search <input name="q" type="search" placeholder="question or answer"></label>',
    '<button type="button" value="open">expand shown</button><button type="button" value="close">collapse all</button>',
    '<span class="dd-count muted" aria-live="polite"></span>',
  ];
  return `<form class="dd-bar" hidden>${controls.join(' ')}</form>`;
}

// ---------- script ----------

/**
 * The section's only script: filters, search, and copying a context's messages
 * in when it is opened. Plain ES2017 with no globals, allowed by its hash in
 * report.html's Content-Security-Policy (DRILLDOWN_SCRIPT_CSP); it reads data
 * attributes and text only, so nothing from the run is ever evaluated.
 */
export const DRILLDOWN_SCRIPT = `(function () {
  var root = document.getElementById('dd');
  if (!root) return;
  var bar = root.querySelector('.dd-bar');
  var rows = Array.prototype.slice.call(root.querySelectorAll('.dd-rows > details'));
  var texts = rows.map(function (r) {
    return Array.prototype.map.call(r.querySelectorAll('summary q, .dd-a td'), function (e) { return e.textContent; }).join('\\n').toLowerCase();
  });
  // data-f holds 'strategy.cause' index pairs, one per strategy that did not pass.
  var fails = rows.map(function (r) {
    return (r.getAttribute('data-f') || '').split(' ').filter(Boolean).map(function (f) { return f.split('.'); });
  });
  var count = bar.querySelector('.dd-count');
  var pool = Array.prototype.slice.call(root.querySelectorAll('#dd-msgs > pre'));
  function value(name) { return bar.elements[name].value; }
  function apply() {
    var s = value('s'), c = value('c'), k = value('k'), t = value('t'), q = value('q').trim().toLowerCase();
    var shown = 0;
    rows.forEach(function (r, i) {
      var ok = (!t || r.getAttribute('data-t') === t) && (!k || r.getAttribute('data-k') === k) &&
        (!(s || c) || fails[i].some(function (f) { return (!s || f[0] === s) && (!c || f[1] === c); })) &&
        (!q || texts[i].indexOf(q) !== -1);
      r.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + ' of ' + rows.length + ' rows shown';
  }
  function fill(d) {
    if (d.hasAttribute('data-filled')) return;
    d.setAttribute('data-filled', '');
    var body = d.appendChild(document.createElement('div'));
    // The paragraph lists message numbers and ranges ('#3, #5' dash '#9'): one number or a pair per comma.
    d.querySelector('p').textContent.split(',').forEach(function (range) {
      var ab = range.match(/\\d+/g), last = Number(ab[1] || ab[0]);
      for (var i = Number(ab[0]); i <= last; i++) {
        var m = pool[i - 1];
        if (m) body.appendChild(m.cloneNode(true));
      }
    });
  }
  bar.addEventListener('input', apply);
  bar.addEventListener('submit', function (e) { e.preventDefault(); });
  bar.addEventListener('click', function (e) {
    var b = e.target.closest('button');
    if (b) rows.forEach(function (r) { r.open = b.value === 'open' && !r.hidden; });
  });
  root.addEventListener('toggle', function (e) {
    if (/^dc\\d/.test(e.target.id) && e.target.open) fill(e.target);
  }, true);
  // A context link opens that context under its row; the context moves, it is never copied.
  root.addEventListener('click', function (e) {
    var a = e.target.closest('.dd-rows a');
    var ctx = a && document.getElementById(a.getAttribute('href').slice(1));
    if (!ctx) return;
    e.preventDefault();
    var row = a.closest('.dd-rows > details');
    var slot = row.querySelector('.dd-slot') || row.appendChild(document.createElement('div'));
    slot.className = 'dd-slot';
    var again = ctx.parentNode === slot && ctx.open;
    slot.appendChild(ctx);
    ctx.open = !again;
    fill(ctx);
  });
  bar.hidden = false;
  apply();
})();`;

/** The CSP source that allows DRILLDOWN_SCRIPT, for the script-src of report.html's policy. */
export const DRILLDOWN_SCRIPT_CSP = `'sha256-${createHash('sha256').update(DRILLDOWN_SCRIPT).digest('base64')}'`;

const CSS = `#dd .dd-bar{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #d0d7de;z-index:1}
#dd .dd-bar label{margin-right:10px}#dd .dd-bar button{margin-right:6px}
#dd .dd-rows>details{margin:4px 0}#dd .dd-rows>details>summary{padding:2px 0}
#dd summary q,#dd .dd-ref{display:block;margin-left:18px}#dd .dd-ref{color:#57606a}
#dd .dd-rows>details table{width:100%;table-layout:fixed}#dd .dd-rows>details th:first-child{width:90px}#dd .dd-rows>details td{word-break:break-word}
#dd pre[data-r]::before{content:attr(data-r);display:block;font:600 12px system-ui,sans-serif;color:#57606a}
#dd-msgs>pre{counter-increment:m}#dd-msgs>pre::before{content:'#' counter(m) ' ' attr(data-r)}
#dd details[data-filled]>p{display:none}`;

// ---------- section ----------

export interface DrilldownOptions {
  /** Rows to render; the rest are counted and left to the sidecar. Default DRILLDOWN_LIMIT. */
  limit?: number;
  /** Where the full list is, named in the note when rows are left out. Default DRILLDOWN_SIDECAR. */
  sidecar?: string;
}

function heading(groups: FailureGroup[], shown: number, sidecar: string): string {
  const records = groups.reduce((n, g) => n + g.records.filter((p) => p.passed !== true).length, 0);
  const intro = `${records} failed or errored answers in ${groups.length} probes (transcript × probe × repeat); each row shows every strategy on that probe. Open a row for the answers, and a context link for the exact context that strategy sent.`;
  const more = shown < groups.length ? `<p class="warn dd-more">${esc(`Showing the first ${shown} of ${groups.length} rows; ${groups.length - shown} more are in `)}<a href="${esc(sidecar)}">${esc(sidecar)}</a>${esc(' (same filters, every row).')}</p>` : '';
  return `<h2 id="failures">Failures and errors (${groups.length} probes)</h2><p class="muted">${esc(intro)}</p>${more}`;
}

/** The failures section of report.html: rows grouped by probe, filters, the distinct contexts once, and its script. */
export function drilldownSection(run: RunResult, options: DrilldownOptions = {}): string {
  return [...drilldownChunks(run, options)].join('');
}

/** Failure groups of a run, made once for report.html and its sidecar. */
const groupsOf = oncePerObject(failureGroups);

/** The failures section a piece at a time: the sidecar of a large run is written as it is made, never held whole. */
function* drilldownChunks(run: RunResult, options: DrilldownOptions): Generator<string> {
  const groups = groupsOf(run);
  if (!groups.length) {
    yield '<h2 id="failures">Failures and errors (0)</h2><p class="ok">Every probe passed.</p>';
    return;
  }
  const shown = groups.slice(0, options.limit ?? DRILLDOWN_LIMIT);
  // Only failed records' contexts are shown (here, and in the sidecar for every group): the lookup
  // need not hold every other message of the run, nor read the file again for the sidecar.
  run.contexts?.expect(groups.flatMap((g) => g.records.flatMap((p) => (showsContext(p) && p.contextRef !== undefined ? [p.contextRef] : []))));
  const frame: Frame = {
    // Strategies that answered no probe (a run stopped early) would be a column of `not run` on every row.
    ids: strategyIds(run).filter((id) => run.probes.some((p) => p.strategy === id)),
    causes: [...ATTRIBUTIONS, 'unattributed'],
    transcripts: [...new Set([...run.info.transcripts.map((t) => t.id), ...shown.map((g) => g.transcript)])],
    index: indexContexts(shown, run.contexts),
    repeats: shown.some((g) => g.repeat > 1),
  };
  yield `<section id="dd"><style>${CSS}</style>${heading(groups, shown.length, options.sidecar ?? DRILLDOWN_SIDECAR)}${filterBar(shown, frame)}<div class="dd-rows">`;
  for (let i = 0; i < shown.length; i++) yield `${i > 0 ? '\n' : ''}${groupRow(shown[i], frame)}`;
  yield '</div>';
  yield* contextsPart(frame.index);
  yield `<script>${DRILLDOWN_SCRIPT}</script></section>`;
}

/**
 * The sidecar page with every row, or undefined when report.html already shows
 * them all, in pieces. `page` builds the document (reports/html.ts `pageChunks`, whose policy
 * must allow DRILLDOWN_SCRIPT_CSP); it is passed in because html.ts imports this module.
 */
export function drilldownSidecar(
  run: RunResult,
  page: (title: string, body: Iterable<string>) => Iterable<string>,
  limit = DRILLDOWN_LIMIT,
): Iterable<string> | undefined {
  if (groupsOf(run).length <= limit) return undefined;
  return page(`memeval ${run.info.runId}: every failure`, sidecarBody(run));
}

function* sidecarBody(run: RunResult): Generator<string> {
  yield '<p><a href="report.html">back to report.html</a></p>';
  yield* drilldownChunks(run, { limit: Number.POSITIVE_INFINITY });
}
