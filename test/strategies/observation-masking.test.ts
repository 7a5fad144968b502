// Observation masking: all but the last keep_last tool results are replaced by
// a placeholder that names the call; messages and calls stay verbatim, each
// result stays paired with its call, and the stored history stays full.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { protocol } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { assistantMessage, callIdOf, itemText, itemType, turnItems, userMessage } from '../../core/items.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';
import { parseConfig } from '../../harness/config.js';
import { runSuite } from '../../harness/run/run.js';
import { STRATEGIES } from '../../strategies/index.js';
import { ObservationMaskingStrategy, compactArguments, maskedText } from '../../strategies/observation-masking.js';
import { OfflineSummarizer } from '../../strategies/offline-summarizer.js';
import type { StrategyContext, StrategyOptions } from '../../strategies/registry.js';

const counter = new TokenCounter();
const ctx: StrategyContext = { counter, makeSummarizer: (o) => new OfflineSummarizer(o) };

function build(options: StrategyOptions): ObservationMaskingStrategy {
  return STRATEGIES.get('observation-masking')!.create(options, ctx) as ObservationMaskingStrategy;
}

type Output = Extract<AgentInputItem, { type: 'function_call_result' }>['output'];

/** One turn: a user message, one tool call and its result, the assistant's reply. */
function toolTurn(n: number, name: string, args: Record<string, unknown>, output: Output): AgentInputItem[] {
  const callId = `call_${n}`;
  return [
    userMessage(`Question ${n}?`),
    { type: 'function_call', callId, name, arguments: JSON.stringify(args) },
    { type: 'function_call_result', callId, name, status: 'completed', output },
    assistantMessage(`Answer ${n}.`),
  ];
}

const results = (items: AgentInputItem[]) => items.filter((i) => itemType(i) === 'function_call_result');

/** Rows as a database tool prints them: 40 orders with distinct ids, totals and dates. */
function rows(seed: number): string {
  return Array.from({ length: 40 }, (_, r) => `${seed * 1000 + r} | ${((seed * 37 + r * 13) % 997) / 10} EUR | 2025-0${(r % 9) + 1}-1${r % 10}`).join('\n');
}

/** A history of `n` tool turns of `run_sql` on hosts db-1, db-2, …, each result long and distinct. */
function sqlHistory(n: number): AgentInputItem[] {
  return Array.from({ length: n }, (_, i) =>
    toolTurn(i + 1, 'run_sql', { host: `db-${i + 1}`, query: 'select * from orders' }, `rows of db-${i + 1}:\n${rows(i + 1)}`),
  ).flat();
}

describe('observation-masking: placeholders', () => {
  it('names the call with its scalar arguments as key=value pairs', () => {
    expect(compactArguments('{"host":"db-prod-7"}')).toBe('host=db-prod-7');
    expect(compactArguments('{"a":1,"b":true,"c":"x y"}')).toBe('a=1, b=true, c=x y');
    // Lists, objects and null are not scalars; arguments that are not a JSON object give nothing.
    expect(compactArguments('{"ids":[1,2],"filter":{"a":1},"none":null,"limit":5}')).toBe('limit=5');
    expect(compactArguments('[1,2]')).toBe('');
    expect(compactArguments('"text"')).toBe('');
    expect(compactArguments('not json')).toBe('');
    expect(maskedText('run_sql', { type: 'function_call', callId: 'c', name: 'run_sql', arguments: '{"host":"db-prod-7"}' })).toBe(
      '[result of run_sql(host=db-prod-7) removed]',
    );
    expect(maskedText('ping', undefined)).toBe('[result of ping() removed]');
  });

  it('cuts long values with an ellipsis, bounds the whole, and keeps it on one line', () => {
    expect(compactArguments(JSON.stringify({ path: '/srv/app/releases/2025-03-02/config/settings.yaml' }))).toBe('path=/srv/app/releases/2025-…');
    expect(compactArguments(JSON.stringify({ query: 'select *\n  from orders\n  where id = 7' }))).toBe('query=select * from orders wh…');
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, `value-${i}`]));
    const shown = compactArguments(JSON.stringify(many));
    expect(shown.length).toBeLessThanOrEqual(60);
    expect(shown).toMatch(/^key0=value-0, key1=value-1, .*, …$/);
    const placeholder = maskedText('run_sql', { type: 'function_call', callId: 'c', name: 'run_sql', arguments: JSON.stringify(many) });
    expect(placeholder.length).toBeLessThanOrEqual(90);
  });
});

describe('observation-masking', () => {
  it('keeps the last keep_last results verbatim and masks the older ones with the exact placeholder', async () => {
    const s = build({ keep_last: 2 });
    const history = sqlHistory(5);
    await s.addItems(history);
    const view = await s.getItems();
    expect(view).toHaveLength(history.length);
    expect(results(view).map(itemText)).toEqual([
      '[result of run_sql(host=db-1, query=select * from orders) removed]',
      '[result of run_sql(host=db-2, query=select * from orders) removed]',
      '[result of run_sql(host=db-3, query=select * from orders) removed]',
      itemText(results(history)[3]),
      itemText(results(history)[4]),
    ]);
    // The kept results are the stored objects themselves.
    expect(results(view)[4]).toBe(results(history)[4]);
  });

  it('keeps 3 results by default, and keep_last: 0 masks every result', async () => {
    const byDefault = build({ keep_last: 3 });
    expect(STRATEGIES.get('observation-masking')!.options.keep_last.default).toBe(3);
    await byDefault.addItems(sqlHistory(5));
    expect(results(await byDefault.getItems()).map((r) => itemText(r).startsWith('[result of'))).toEqual([true, true, false, false, false]);

    const none = build({ keep_last: 0 });
    await none.addItems(sqlHistory(3));
    expect(results(await none.getItems()).map(itemText)).toEqual([1, 2, 3].map((n) => `[result of run_sql(host=db-${n}, query=select * from orders) removed]`));
  });

  it('never masks the results of exclude_tools, which do not count against keep_last', async () => {
    const s = build({ keep_last: 1, exclude_tools: ['read_file'] });
    const readme = toolTurn(1, 'read_file', { path: 'README.md' }, 'The deploy key is K-5521.');
    await s.addItems([...readme, ...sqlHistory(3).map((item) => relabel(item, 10)), ...toolTurn(2, 'read_file', { path: 'NOTES.md' }, 'Notes.')]);
    const texts = results(await s.getItems()).map(itemText);
    expect(texts).toEqual([
      'The deploy key is K-5521.',
      '[result of run_sql(host=db-1, query=select * from orders) removed]',
      '[result of run_sql(host=db-2, query=select * from orders) removed]',
      // The last run_sql result is kept, though a read_file result came after it.
      expect.stringMatching(/^rows of db-3:/),
      'Notes.',
    ]);
  });

  it('keeps each pair whole: call id, name and status unchanged, the result after its call, the SDK schema satisfied', async () => {
    const s = build({ keep_last: 0 });
    const history = [
      ...toolTurn(1, 'fetch', { url: 'https://example.com' }, 'plain text output'),
      ...toolTurn(2, 'fetch', { url: 'https://example.org' }, { type: 'text', text: 'a structured text output' }),
      ...toolTurn(3, 'screenshot', { page: 1 }, { type: 'image', image: 'https://example.com/shot.png' }),
      ...toolTurn(4, 'search', { q: 'tides' }, [{ type: 'input_text', text: 'part one' }, { type: 'input_text', text: 'part two' }]),
    ];
    await s.addItems(history);
    const view = await s.getItems();
    expect(view.map(itemType)).toEqual(history.map(itemType));
    view.forEach((item, i) => {
      expect(protocol.ModelItem.safeParse(item).success, JSON.stringify(item)).toBe(true);
      if (itemType(item) !== 'function_call_result') {
        expect(item).toBe(history[i]);
        return;
      }
      const { output: _masked, ...rest } = item as Record<string, unknown>;
      const { output: _original, ...stored } = history[i] as Record<string, unknown>;
      expect(rest).toEqual(stored);
      expect(callIdOf(view[i - 1])).toBe(callIdOf(item));
    });
    const outputs = results(view).map((r) => (r as { output: unknown }).output);
    expect(outputs).toEqual([
      '[result of fetch(url=https://example.com) removed]',
      { type: 'text', text: '[result of fetch(url=https://example.org) removed]' },
      { type: 'text', text: '[result of screenshot(page=1) removed]' },
      [{ type: 'input_text', text: '[result of search(q=tides) removed]' }],
    ]);
  });

  it('leaves user and assistant messages, and the stored history, untouched', async () => {
    const s = build({ keep_last: 1 });
    const history = sqlHistory(4);
    const stored = structuredClone(history);
    await s.addItems(history);
    const view = await s.getItems();
    view.forEach((item, i) => {
      if (itemType(item) === 'message') expect(item).toBe(history[i]);
    });
    expect(s.getHistory()).toEqual(stored);
    expect(s.getHistory()).toHaveLength(view.length);
    expect(results([...s.getHistory()]).map(itemText)).toEqual(results(stored).map(itemText));
  });

  it('sends far fewer tokens than the full history on a tool-heavy history', async () => {
    const s = build({ keep_last: 2 });
    const history = sqlHistory(12);
    await s.addItems(history);
    const view = await s.getItems();
    const full = counter.request(undefined, history);
    const masked = counter.request(undefined, view);
    expect(masked).toBeLessThan(full / 2);
  });

  it('keeps a masked result as one object across views, and masks more as results arrive', async () => {
    const s = build({ keep_last: 1 });
    await s.addItems(sqlHistory(2));
    const first = await s.getItems();
    await s.addItems(toolTurn(3, 'run_sql', { host: 'db-3' }, 'rows of db-3'));
    const second = await s.getItems();
    // The prefix is the same objects, so a provider's prompt cache and the token counter see it unchanged.
    expect(second[2]).toBe(first[2]);
    expect(itemText(second[6])).toBe('[result of run_sql(host=db-2, query=select * from orders) removed]');
    expect(itemText(second[10])).toBe('rows of db-3');
    expect(await s.getItems(2)).toEqual(second.slice(-2));
  });

  it('rebuilds its index after popItem and clearSession', async () => {
    const s = build({ keep_last: 1 });
    await s.addItems(sqlHistory(2));
    await s.popItem(); // the assistant reply of turn 2
    await s.popItem(); // the result of turn 2: the result of turn 1 is the last one again
    expect(results(await s.getItems()).map(itemText)).toEqual([expect.stringMatching(/^rows of db-1:/)]);
    await s.clearSession();
    expect(await s.getItems()).toEqual([]);
    await s.addItems(sqlHistory(2));
    expect(results(await s.getItems()).map(itemText)).toEqual([
      '[result of run_sql(host=db-1, query=select * from orders) removed]',
      expect.stringMatching(/^rows of db-2:/),
    ]);
  });

  it("masks results replayed from a transcript's tool_calls turns", async () => {
    const s = build({ keep_last: 1 });
    const turn = (n: number, host: string) =>
      turnItems({ kind: 'message', user: `Check ${host}.`, toolCalls: [{ name: 'ping', arguments: { host }, output: `${host} is up` }], assistant: 'Up.' }, n);
    await s.addItems([...turn(1, 'web-1'), ...turn(2, 'web-2')]);
    expect(results(await s.getItems()).map(itemText)).toEqual(['[result of ping(host=web-1) removed]', 'web-2 is up']);
  });

  it('computes a view in one pass: a long history stays fast', async () => {
    const s = build({ keep_last: 3 });
    const turns = 2000;
    const started = performance.now();
    for (let n = 1; n <= turns; n++) {
      await s.addItems(toolTurn(n, 'run_sql', { host: `db-${n}` }, `rows ${n}`));
      await s.getItems();
    }
    // 2,000 views over up to 8,000 items: well under a second when each view is one pass over the history.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(results(await s.getItems()).filter((r) => !itemText(r).startsWith('[result of'))).toHaveLength(3);
  });
});

/** `item` with its call id moved by `offset` turns, so two histories can be joined. */
function relabel(item: AgentInputItem, offset: number): AgentInputItem {
  const id = callIdOf(item);
  if (id === undefined) return item;
  return { ...item, callId: `call_${Number(id.slice('call_'.length)) + offset}` } as AgentInputItem;
}

const TRANSCRIPT = `id: orders
system: You are a support assistant.
turns:
  - user: Where is order A-17?
    tool_calls:
      - name: lookup_order
        arguments: { order_id: A-17 }
        output: '{"order":"A-17","status":"shipped","carrier":"DHL","tracking":"ZX-99812","items":[{"sku":"KB-104","name":"keyboard","qty":1},{"sku":"MS-220","name":"mouse","qty":2}],"address":"12 Harbour Road, Leith"}'
    assistant: It shipped with DHL.
  - user: Which orders are the largest?
    tool_calls:
      - name: run_sql
        arguments: { host: db-prod-7, query: select id, total from orders order by total desc limit 6 }
        output: "id | total\\nA-88 | 1204.50\\nA-19 | 998.00\\nA-42 | 870.25\\nA-07 | 815.10\\nA-63 | 799.99\\nA-31 | 760.00"
    assistant: A-88 is the largest.
  - user: And the open invoices?
    tool_calls:
      - name: run_sql
        arguments: { host: db-prod-7, query: select id, due from invoices where open }
        output: "id | due\\nINV-877 | 2025-04-01\\nINV-878 | 2025-04-03"
    assistant: Two invoices are open.
facts:
  - { id: tracking, text: ZX-99812, turn: 1 }
  - { id: invoice, text: INV-877, turn: 3 }
probes:
  - id: tracking-q
    after_turn: 3
    question: Which tracking number does order A-17 have?
    answer: ZX-99812
    must_include: [ZX-99812]
    facts: [tracking]
`;

describe('observation-masking in a run', () => {
  it.each(['direct', 'runner'])('runs end to end with the offline model (agent: %s): the masked fact is missing, the kept one present, fewer tokens sent', async (agent) => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-obsmask-'));
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'orders.yaml'), TRANSCRIPT);
    const file = join(dir, 'memeval.config.yaml');
    writeFileSync(
      file,
      `datasets: [data/*.yaml]
out: runs
model: offline
judge: offline
agent: ${agent}
cache: false
baseline: full
strategies:
  - { id: full, use: full-history }
  - { id: mask, use: observation-masking, keep_last: 1 }
`,
    );
    const { run } = await runSuite({ config: parseConfig(readFileSync(file, 'utf8'), file), log: () => undefined });
    expect(run.info.status).toBe('complete');
    const last = (strategy: string) => run.turns.filter((t) => t.strategy === strategy).at(-1)!;
    expect(last('mask').contextTokens).toBeLessThan(last('full').contextTokens);
    // The masked lookup_order result held the tracking number; the kept run_sql result holds the invoice.
    expect([last('mask').factsPresentCount, last('mask').factsMissingCount]).toEqual([1, 1]);
    expect([last('full').factsPresentCount, last('full').factsMissingCount]).toEqual([2, 0]);
    const probe = (strategy: string) => run.probes.find((p) => p.strategy === strategy)!;
    expect(probe('full')).toMatchObject({ factsMissing: [], answerable: true, passed: true });
    expect(probe('mask')).toMatchObject({ factsMissing: ['tracking'], answerable: false, passed: false, attribution: 'trimmed' });
  });
});
