// Probe records as run.json writes them: a table per job (strategy ×
// transcript), whose columns are the fields its records have, read back as the
// records they were made from.
import { describe, expect, it } from 'vitest';
import { PROBE_NAN_FIELDS, probeEntriesSchema, probeRecordSchema, probeTables, tableProbes } from '../../../core/schema/run.js';
import type { ProbeRecord } from '../../../core/types.js';
import { bareProbeRecord } from '../../helpers/sample-run.js';

/** Records as older runs wrote them, a JSON object each, read back. */
const asRecords = (records: ProbeRecord[]): ProbeRecord[] => probeEntriesSchema.parse(JSON.parse(JSON.stringify(records)));

/** Tables through JSON, as run.json holds them, and back to records. */
function roundTrip(records: ProbeRecord[]): ProbeRecord[] {
  const tables = JSON.parse(JSON.stringify([...probeTables(records)])) as unknown[];
  return probeEntriesSchema.parse(tables);
}

function probe(transcript: string, n: number, fields: Partial<ProbeRecord> = {}): ProbeRecord {
  return bareProbeRecord({ strategy: 's', transcript, probe: `p${n}`, reference: `r${n}`, ...fields });
}

describe('probe tables', () => {
  it('read back as the records they were made from: absent fields, null answerable, NaN and text that reads "NaN"', () => {
    const records = [
      probe('t1', 1, { answer: 'A-1042', exact: true, f1: 1, passed: true, cost: 0.001, costCached: 0.0005, latencyMs: 12, usage: { inputTokens: 10, outputTokens: 2 }, answerable: true }),
      // A judge error: the scores are NaN; the answer is the text "NaN", which stays text.
      probe('t1', 2, { answer: 'NaN', f1: Number.NaN, cost: Number.NaN, costCached: Number.NaN, latencyMs: Number.NaN, error: 'judge: HTTP 429', errorStage: 'judge' }),
      // Fields only this record has, and none of the ones before it has.
      probe('t1', 3, { toolCalls: [{ name: 'get_order', arguments: '{"id":"A-1"}' }], meta: { category: 2, evidence: null }, factsOpaque: ['f9'] }),
    ];
    const back = roundTrip(records);
    expect(back).toStrictEqual(records);
    expect(back).toEqual(asRecords(records));
    expect(back[0]).not.toHaveProperty('toolCalls');
    expect(back[1]).not.toHaveProperty('usage');
    expect(back[1].answer).toBe('NaN');
    for (const field of PROBE_NAN_FIELDS) expect(back[1][field]).toBeNaN();
    expect(back[2].answerable).toBeNull();
    expect(back[2]).not.toHaveProperty('f1');
  });

  it('write NaN, and the infinities JSON also writes as null, as "NaN" only in the fields that can be NaN', () => {
    const [table] = [...probeTables([probe('t1', 1, { f1: Number.NaN, cost: Number.POSITIVE_INFINITY, latencyMs: 5, answer: 'NaN' })])];
    const cell = (column: string) => table.rows[0][table.columns.indexOf(column)];
    expect([cell('f1'), cell('cost'), cell('latencyMs'), cell('answer')]).toEqual(['NaN', 'NaN', 5, 'NaN']);
    expect(tableProbes(table, () => expect.unreachable())[0].cost).toBeNaN();
  });

  it('name as columns only the fields their records have, a null cell where a record lacks one', () => {
    const [table] = [...probeTables([probe('t1', 1), probe('t1', 2, { answer: 'yes', answerable: null })])];
    // In the order the fields first appear; strategy and transcript are the table's own.
    expect(table.columns).toEqual(['kind', 'afterTurn', 'repeat', 'question', 'contextTokens', 'contextItems', 'factsNeeded', 'factsPresent', 'factsMissing', 'probe', 'reference', 'answer']);
    expect(table.rows.map((row) => row[table.columns.indexOf('answer')])).toEqual([null, 'yes']);
    expect(table).toMatchObject({ strategy: 's', transcript: 't1' });
  });

  it('hold one job each, and at most 1,000 rows: a longer job is split over tables in order', () => {
    const long = Array.from({ length: 2345 }, (_, i) => probe('t1', i, i % 7 === 0 ? { f1: Number.NaN } : { f1: 0.5, answer: `a${i}` }));
    const records = [...long, probe('t2', 1), probe('t2', 2), { ...probe('t2', 3), strategy: 'other' }];
    const tables = [...probeTables(records)];
    expect(tables.map((t) => [t.strategy, t.transcript, t.rows.length])).toEqual([
      ['s', 't1', 1000],
      ['s', 't1', 1000],
      ['s', 't1', 345],
      ['s', 't2', 2],
      ['other', 't2', 1],
    ]);
    expect(roundTrip(records)).toStrictEqual(records);
  });

  it('read beside records of a probe each (older runs), and name a bad cell by its table, row and field', () => {
    const records = [probe('t1', 1, { answer: 'x' }), probe('t1', 2)];
    const [table] = [...probeTables(records)];
    expect(probeEntriesSchema.parse([table, records[0]])).toEqual([...records, records[0]]);
    const bad = { ...table, rows: [table.rows[0], table.rows[1].map((cell, i) => (table.columns[i] === 'repeat' ? 'twice' : cell))] };
    const parsed = probeEntriesSchema.safeParse([records[0], bad]);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([[1, 'rows', 1, 'repeat']]);
    const short = probeEntriesSchema.safeParse([{ ...table, rows: [table.rows[0].slice(1)] }]);
    expect(short.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([[[0, 'rows', 0], `has ${table.columns.length - 1} cells for ${table.columns.length} columns`]]);
  });

  it('refuse a table that names a column twice, or a column that would set a row prototype', () => {
    const [table] = [...probeTables([probe('t1', 1, { answer: 'x' })])];
    const twice = probeEntriesSchema.safeParse([{ ...table, columns: [...table.columns, 'answer'], rows: [[...table.rows[0], 'y']] }]);
    expect(twice.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([[[0, 'columns', table.columns.length], 'names "answer" twice']]);
    const proto = probeEntriesSchema.safeParse([{ ...table, columns: [...table.columns, '__proto__'], rows: [[...table.rows[0], { passed: true }]] }]);
    expect(proto.error?.issues.map((issue) => issue.message)).toEqual(['names "__proto__", which is no field']);
  });

  it('list as the fields that can be NaN exactly those that read null as NaN', () => {
    const readsNullAsNaN = Object.entries(probeRecordSchema.shape)
      .filter(([, schema]) => {
        const parsed = schema.safeParse(null);
        return parsed.success && Number.isNaN(parsed.data);
      })
      .map(([field]) => field);
    expect([...PROBE_NAN_FIELDS].sort()).toEqual(readsNullAsNaN.sort());
  });
});
