import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { importBenchmark, locomoSampleToTranscript, parseErrata, readErrataFiles } from '../../../../harness/datasets/importers/index.js';
import { allocate, stratifiedSample } from '../../../../harness/datasets/importers/select.js';
import { importCommand, summaryLines } from '../../../../harness/commands/import.js';
import { loadTranscriptFile } from '../../../../harness/datasets/transcript.js';
import { protocolManifest } from '../../../../harness/run/run-info.js';
import { inputErrorOf } from '../../../helpers/errors.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/importers');
const LOCOMO = join(FIXTURES, 'locomo-mini.json');
const LME = join(FIXTURES, 'longmemeval-mini.json');
let dir: string;
let n = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-import-opts-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function out(): string {
  return join(dir, `out-${++n}`);
}

function json(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
}

function probeIds(path: string): string[] {
  return loadTranscriptFile(path).probes.map((p) => p.id);
}

describe('category and type filters', () => {
  it('--exclude-category drops those LoCoMo questions and counts them', async () => {
    const summary = await importBenchmark('locomo', LOCOMO, { out: out(), selection: { excludeCategories: new Set([5]) } });
    expect(summary.dropped.category).toBe(2);
    expect(probeIds(summary.written[0])).toEqual(['q1', 'q2', 'q3', 'q5', 'q6', 'q7', 'q8', 'q11', 'q12']);
  });

  it('does not write a conversation whose every question was left out', async () => {
    const summary = await importBenchmark('locomo', LOCOMO, { out: out(), selection: { excludeCategories: new Set([2, 4]) } });
    expect(summary.written.map((p) => p.split('/').pop())).toEqual(['locomo-conv-mini-1.yaml']);
  });

  it('--types keeps only those LongMemEval question types', async () => {
    const target = out();
    const summary = await importBenchmark('longmemeval', LME, { out: target, selection: { types: new Set(['knowledge-update', 'multi-session']) } });
    expect(readdirSync(target).sort()).toEqual(['lme-ku-0007.yaml', 'lme-ms-0100.yaml']);
    expect(summary.dropped.type).toBe(3);
  });
});

describe('what the import did, recorded with every transcript', () => {
  it('records the input file, filters, sample and errata files (names and sha256) under meta.import, which the run manifest reads', async () => {
    const errata = json('errata-record.json', [{ sample_id: 'conv-mini-1', qa_index: 0 }]);
    const options = { out: out(), limit: 2, selection: { excludeCategories: new Set([5, 3]), errata: readErrataFiles([errata]) }, errataFiles: [errata] };
    const summary = await importBenchmark('locomo', LOCOMO, options);
    const record = loadTranscriptFile(summary.written[0]).meta?.import as Record<string, unknown>;
    expect(record).toMatchObject({ benchmark: 'locomo', file: 'locomo-mini.json', limit: 2, exclude_categories: [3, 5] });
    expect(record.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(record.errata).toEqual([{ file: 'errata-record.json', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const transcripts = summary.written.map((p) => loadTranscriptFile(p));
    const manifest = protocolManifest(transcripts, { model: 'offline', judge: 'offline', agent: 'direct', judgeSamples: 1 });
    expect(manifest.datasets?.[0]?.import).toEqual([record]);
  });
});

describe('errata', () => {
  const audit = [
    { question_id: 'locomo_0_qa0', question: 'What did Caroline go to yesterday?', golden_answer: 'LGBTQ support group', error_type: 'HALLUCINATION' },
    { question_id: 'locomo_0_qa2', question: 'What activities has Melanie done?', error_type: 'WRONG_CITATION' },
    { question_id: 'locomo_1_qa1', question: 'When does the studio open?', error_type: 'TEMPORAL_ERROR' },
    { question_id: 'locomo_0_qa8', error_type: 'AMBIGUOUS' },
    { question_id: 'locomo_7_qa0', question: 'Not in this file?', error_type: 'HALLUCINATION' },
  ];

  it('drops the listed questions (audit and plain formats), keeps citation-only ones, and prunes their facts', async () => {
    const plain = [{ sample_id: 'conv-mini-1', question: 'where is  Caroline moving?' }];
    const errata = readErrataFiles([json('errors_conv_0.json', audit), json('plain.json', { errata: plain })]);
    expect(errata.citationOnly).toBe(1);
    const summary = await importBenchmark('locomo', LOCOMO, { out: out(), selection: { errata } });
    expect(summary.dropped.errata).toBe(3);
    const [first, second] = summary.written.map((p) => loadTranscriptFile(p));
    expect(first.probes.map((p) => p.id)).not.toContain('q1');
    expect(first.probes.map((p) => p.id)).not.toContain('q5');
    expect(first.probes.map((p) => p.id)).toContain('q3');
    expect(second.probes.map((p) => p.id)).toEqual(['q1']);
    // D1-3 was q1's evidence only, D10-1 q5's; D1-4 is still q2's.
    const factIds = first.facts.map((f) => f.id);
    expect(factIds).not.toContain('D1-3');
    expect(factIds).not.toContain('D10-1');
    expect(factIds).toContain('D1-4');
    // qa[8] has no question in the data (skipped on import); the entry for conversation 7 is outside the file.
    expect(summary.errata).toEqual({ citationOnly: 1, unmatched: [`${join(dir, 'errors_conv_0.json')}[3]`] });
  });

  it('refuses errata whose quoted question differs from the data', async () => {
    const errata = readErrataFiles([json('other-version.json', [{ question_id: 'locomo_0_qa1', question: 'Something else?', error_type: 'HALLUCINATION' }])]);
    const target = out();
    const message = await inputErrorOf(() => importBenchmark('locomo', LOCOMO, { out: target, selection: { errata } }));
    expect(message).toMatch(/quotes "Something else\?" but the question is "Since which year has Caroline been volunteering\?"/);
  });

  it('names every malformed entry', () => {
    const { problems } = parseErrata([{ question_id: 'conv-26_q1' }, { sample_id: 'x' }, { conversation: -1, qa_index: 0 }, 'text', { sample_id: 'x', qa_index: 1.5 }, { conversation: 2, qa_index: 0 }], 'e.json');
    expect(problems.map((p) => p.message)).toEqual([
      'entry 0: question_id "conv-26_q1" is not of the form locomo_<conversation>_qa<question>',
      'entry 1: needs qa_index or question',
      'entry 2: needs question_id, sample_id, or conversation (a sample_id or a 0-based position)',
      'entry 3: not an object',
      'entry 4: qa_index must be a whole number ≥ 0',
    ]);
    expect(parseErrata({ note: 'x' }, 'e.json').problems[0].message).toMatch(/must be a JSON list/);
    expect(() => readErrataFiles([join(dir, 'nope.json')])).toThrow(/cannot read errata/);
  });
});

describe('stratified sample', () => {
  it('allocates proportionally, at least one per stratum when there is room, summing to N', () => {
    const sizes = new Map([['a', 50], ['b', 30], ['c', 15], ['d', 5]]);
    expect(Object.fromEntries(allocate(sizes, 10))).toEqual({ a: 5, b: 3, c: 1, d: 1 });
    expect(Object.fromEntries(allocate(sizes, 20))).toEqual({ a: 10, b: 6, c: 3, d: 1 });
    // Fewer than the strata: largest shares first.
    expect(Object.fromEntries(allocate(sizes, 3))).toEqual({ a: 2, b: 1, c: 0, d: 0 });
    // The minimum of one is taken from the stratum rounded up the most.
    expect(Object.fromEntries(allocate(new Map([['a', 97], ['b', 1], ['c', 1], ['d', 1]]), 4))).toEqual({ a: 1, b: 1, c: 1, d: 1 });
    expect(Object.fromEntries(allocate(sizes, 500))).toEqual({ a: 50, b: 30, c: 15, d: 5 });
  });

  it('draws the same sample for the same seed and another for another seed', () => {
    const units = Array.from({ length: 150 }, (_, i) => ({ key: `u${i}`, stratum: i < 100 ? 'a' : 'b' }));
    const one = stratifiedSample(units, 30, 7);
    expect([...one.keys].sort()).toEqual([...stratifiedSample(units, 30, 7).keys].sort());
    expect([...one.keys].sort()).not.toEqual([...stratifiedSample(units, 30, 8).keys].sort());
    expect([...one.keys].filter((k) => Number(k.slice(1)) < 100)).toHaveLength(20);
    expect(one.keys.size).toBe(30);
  });

  it('samples LoCoMo questions across conversations, one per category at N = 5, reproducibly', async () => {
    const [a, b] = [out(), out()];
    const summary = await importBenchmark('locomo', LOCOMO, { out: a, sample: { size: 5, seed: 3 } });
    await importBenchmark('locomo', LOCOMO, { out: b, sample: { size: 5, seed: 3 } });
    expect(summary.probes).toBe(5);
    expect(summary.dropped.sample).toBe(8);
    expect(summary.sample?.perStratum).toEqual({
      'category 1 (multi-hop)': 1,
      'category 2 (temporal)': 1,
      'category 3 (open-domain)': 1,
      'category 4 (single-hop)': 1,
      'category 5 (adversarial)': 1,
    });
    const kinds = summary.written.flatMap((p) => loadTranscriptFile(p).probes.map((q) => String(q.meta?.category)));
    expect(new Set(kinds.map(Number))).toEqual(new Set([1, 2, 3, 4, 5]));
    for (const name of readdirSync(a)) expect(readFileSync(join(b, name), 'utf8')).toBe(readFileSync(join(a, name), 'utf8'));
  });

  it('samples LongMemEval records by question type after the type filter', async () => {
    const summary = await importBenchmark('longmemeval', LME, { out: out(), sample: { size: 2, seed: 1 }, selection: { types: new Set(['knowledge-update', 'multi-session', 'temporal-reasoning']) } });
    expect(summary.written).toHaveLength(2);
    expect(summary.sample).toMatchObject({ population: 3, requested: 2 });
  });
});

describe('quirks summary', () => {
  it('sums what the importers tolerated over the files written', async () => {
    const locomo = await importBenchmark('locomo', LOCOMO, { out: out() });
    expect(locomo.quirks).toContain('3 evidence ids matching no utterance (1 file)');
    expect(locomo.quirks).toContain('1 session dates not understood (kept in the session header, no at:) (1 file)');
    expect(locomo.quirks).toContain('1 empty sessions skipped (1 file)');
    const lme = await importBenchmark('longmemeval', LME, { out: out() });
    expect(lme.quirks).toContain('1 records whose sessions were re-sorted by date (1 file)');
  });

  it('notes image captions without an image URL', () => {
    const line = (dia: string, extra: object): object => ({ speaker: 'A', dia_id: dia, text: 'look', ...extra });
    const session = [line('D1:1', { blip_caption: 'a cat' }), line('D1:2', { blip_caption: 'a dog', img_url: [] }), line('D1:3', { blip_caption: 'a hat', img_url: ['https://example.invalid/h.jpg'] })];
    const t = locomoSampleToTranscript({ sample_id: 's', conversation: { speaker_a: 'A', speaker_b: 'B', session_1: session }, qa: [] }, 0);
    expect(t.meta?.images_without_url).toBe(2);
  });

  it('prints counts, what was left out, the sample and the quirks', () => {
    const lines = summaryLines(
      {
        written: ['a', 'b'],
        probes: 4,
        facts: 3,
        genericFacts: 0,
        dropped: { errata: 2, category: 5, type: 0, sample: 9 },
        errata: { citationOnly: 1, unmatched: ['e.json[3]'] },
        sample: { seed: 7, requested: 4, population: 13, perStratum: { 'category 1': 2, 'category 2': 2 } },
        removed: ['old.yaml'],
        quirks: ['3 evidence ids matching no utterance (1 file)'],
      },
      'out',
    );
    expect(lines).toEqual([
      '2 transcripts, 4 probes, 3 facts → out',
      'left out 5 questions of excluded categories',
      'left out 2 questions listed in the errata; kept 1 whose errata entry is citation-only',
      'warning: 1 errata entries matched no question (e.g. e.json[3])',
      'sample (seed 7): 4 of 13 questions: category 1 2, category 2 2',
      'removed 1 transcripts of an earlier import (--clean)',
      'tolerated in the data:',
      '  3 evidence ids matching no utterance (1 file)',
    ]);
  });
});

describe('import options on the command line', () => {
  it.each([
    [['locomo', LOCOMO, '--sample', '0', '--seed', '1'], /--sample must be a whole number from 1 up \(got "0"\)/],
    [['locomo', LOCOMO, '--sample', '5x', '--seed', '1'], /--sample must be a whole number/],
    [['locomo', LOCOMO, '--sample', '5'], /--sample needs --seed S/],
    [['locomo', LOCOMO, '--seed', '5'], /--seed only goes with --sample N/],
    [['locomo', LOCOMO, '--sample', '5', '--seed=-1'], /--seed must be a whole number from 0 to 4294967295/],
    [['locomo', LOCOMO, '--sample', '5', '--seed', '4294967296'], /--seed must be a whole number from 0 to 4294967295/],
    [['locomo', LOCOMO, '--exclude-category', '9'], /unknown LoCoMo category "9" \(1 multi-hop, 2 temporal/],
    [['locomo', LOCOMO, '--exclude-category', '1,,5'], /no empty entries/],
    [['locomo', LOCOMO, '--types', 'multi-session'], /--types is for LongMemEval/],
    [['longmemeval', LME, '--types', 'multi-session,bogus'], /unknown LongMemEval question type "bogus" \(single-session-user/],
    [['longmemeval', LME, '--exclude-category', '5'], /--exclude-category is for LoCoMo/],
    [['longmemeval', LME, '--errata', 'e.json'], /--errata is for LoCoMo/],
    [['locomo', LOCOMO, '--limit', '0'], /--limit must be a whole number from 1 up/],
  ])('refuses %j with exit 2', async (args, message) => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const target = out();
      expect(await importCommand([...args, '--out', target])).toBe(2);
      expect(String(stderr.mock.calls[0][0])).toMatch(message);
      expect(() => readdirSync(target)).toThrow();
    } finally {
      stderr.mockRestore();
    }
  });

  it('passes the options through and prints the summary', async () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const errata = json('cli-errata.json', [{ question_id: 'locomo_0_qa0', question: 'What did Caroline go to yesterday?', error_type: 'HALLUCINATION' }]);
      const args = ['locomo', LOCOMO, '--out', out(), '--exclude-category', '5', '--errata', errata, '--sample', '4', '--seed', '2'];
      expect(await importCommand(args)).toBe(0);
      const printed = stdout.mock.calls.map((c) => String(c[0])).join('');
      expect(printed).toMatch(/^\d transcripts, 4 probes, \d+ facts → /);
      expect(printed).toContain('left out 2 questions of excluded categories');
      expect(printed).toContain('left out 1 questions listed in the errata');
      expect(printed).toMatch(/sample \(seed 2\): 4 of 10 questions: category 1 \(multi-hop\) 1, category 2 \(temporal\) 1, category 3 \(open-domain\) 1, category 4 \(single-hop\) 1/);
    } finally {
      stdout.mockRestore();
    }
  });
});
