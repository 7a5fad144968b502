import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBenchmark, importRecord } from '../../../../harness/datasets/importers/index.js';
import { LOCOMO_ABSTENTION_ANSWER, locomoSampleToTranscript, normalizeDiaId, parseLocomoDate } from '../../../../harness/datasets/importers/locomo.js';
import { containsPhrase, normalizeText } from '../../../../core/text.js';
import { GENERIC_FACT_MIN_TURNS, genericFactCount, turnsStating } from '../../../../harness/datasets/importers/shared.js';
import { summaryLines } from '../../../../harness/commands/import.js';
import { loadTranscriptFile } from '../../../../harness/datasets/transcript.js';
import type { MessageTurn, Probe, Transcript } from '../../../../core/types.js';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/importers/locomo-mini.json');
const samples = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];

function msg(t: Transcript, n: number): MessageTurn {
  const turn = t.turns[n - 1];
  if (turn.kind !== 'message') throw new Error('expected a message turn');
  return turn;
}

function probe(t: Transcript, id: string): Probe {
  const p = t.probes.find((x) => x.id === id);
  if (!p) throw new Error(`no probe ${id}`);
  return p;
}

describe('LoCoMo date and id parsing', () => {
  it('reads the LoCoMo date format as local ISO time', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe('2023-05-08T13:56:00');
    expect(parseLocomoDate('12:04 am on 20 May, 2023')).toBe('2023-05-20T00:04:00');
    expect(parseLocomoDate('12:30 pm on 1 January, 2024')).toBe('2024-01-01T12:30:00');
    expect(parseLocomoDate('9:05 AM on 3 Sept, 2022')).toBe('2022-09-03T09:05:00');
    expect(parseLocomoDate('10:00 am on 31 February, 2023')).toBeUndefined();
    expect(parseLocomoDate('sometime in late January')).toBeUndefined();
    expect(parseLocomoDate('13:00 pm on 1 May, 2023')).toBeUndefined();
  });

  it('normalises lenient evidence ids and refuses the hopeless ones', () => {
    expect(normalizeDiaId('D1:3')).toBe('D1:3');
    expect(normalizeDiaId('D1:3:5')).toBe('D1:3');
    expect(normalizeDiaId('(D2: 07)')).toBe('D2:7');
    expect(normalizeDiaId('D:12')).toBeUndefined();
    expect(normalizeDiaId('D10')).toBeUndefined();
  });
});

describe('LoCoMo sample conversion', () => {
  const t = locomoSampleToTranscript(samples[0], 0);
  const t2 = locomoSampleToTranscript(samples[1], 1);

  it('orders sessions numerically and puts each date on its first turn, once', () => {
    const sessions = t.turns.map((turn) => turn.meta?.session).filter((s) => s !== undefined);
    expect(sessions).toEqual([1, 2, 5, 10]);
    expect(msg(t, 1).at).toBe('2023-05-08T13:56:00');
    // The date travels as `at:` (shown as a `[date]` prefix); the header names only the session.
    expect(msg(t, 1).user.startsWith('[Session 1]\nCaroline: Hey Mel!')).toBe(true);
    expect(msg(t, 1).meta?.date).toBe('1:56 pm on 8 May, 2023');
    expect(msg(t, 2).at).toBeUndefined();
    const last = msg(t, t.turns.length);
    expect(last.at).toBe('2023-06-27T10:37:00');
    // session 5 has no date key: a header without a date, no `at`.
    const s5 = t.turns.find((turn) => turn.meta?.session === 5) as MessageTurn;
    expect(s5.at).toBeUndefined();
    expect(s5.user.startsWith('[Session 5]\n')).toBe(true);
  });

  it('maps speaker_a to user and speaker_b to assistant, joining runs of one speaker', () => {
    expect(msg(t, 2).user).toBe(
      'Caroline: I went to an LGBTQ support group yesterday and it was so powerful.\nI also started volunteering back in 2022, it keeps me grounded.',
    );
    expect(msg(t, 2).assistant).toContain('Melanie: That\'s great! I finally finished my pottery class. [shares a photo of a blue ceramic bowl]\nPainting a sunrise');
    expect(msg(t, 2).meta?.dia_ids).toEqual(['D1:3', 'D1:4', 'D1:5', 'D1:6']);
  });

  it('gives a session that opens with speaker_b a header-only user message', () => {
    const s2 = msg(t, 3);
    expect(s2.user).toBe('[Session 2]');
    expect(s2.assistant).toBe('Melanie: Caroline, we went camping with the kids last weekend!');
  });

  it('writes image-only lines as the caption in brackets', () => {
    expect(msg(t, 4).assistant).toBe('Melanie: [shares a tent by a lake at sunset]');
  });

  it("keeps a shared image's URL, query and caption in the turn's meta (the text keeps only the caption)", () => {
    expect(msg(t, 2).meta?.images).toEqual([{ dia_id: 'D1:5', url: ['https://example.invalid/bowl.jpg'], caption: 'a photo of a blue ceramic bowl' }]);
    const withQuery = locomoSampleToTranscript(
      { sample_id: 'q', conversation: { speaker_a: 'A', speaker_b: 'B', session_1: [{ speaker: 'A', dia_id: 'D1:1', text: 'Look', img_url: 'https://example.invalid/x.jpg', query: 'red kite', blip_caption: 'a red kite' }] }, qa: [] },
      0,
    );
    const turn = withQuery.turns[0];
    expect(turn.kind === 'message' ? turn.meta?.images : undefined).toEqual([{ dia_id: 'D1:1', url: 'https://example.invalid/x.jpg', query: 'red kite', caption: 'a red kite' }]);
  });

  it('notes date keys without a session and empty sessions instead of inventing turns', () => {
    expect(t.meta?.dates_without_session).toEqual([3]);
    expect(t.meta?.empty_sessions).toEqual([4]);
    expect(t.turns).toHaveLength(6);
  });

  it('maps categories to kinds and asks every probe after the last turn', () => {
    expect(t.probes.map((p) => [p.id, p.kind])).toEqual([
      ['q1', 'recall'],
      ['q2', 'temporal'],
      ['q3', 'multi-hop'],
      ['q4', 'abstention'],
      ['q5', 'recall'],
      ['q6', 'recall'],
      ['q7', 'recall'],
      ['q8', 'temporal'],
      ['q10', 'abstention'],
      ['q11', 'recall'],
      ['q12', 'multi-hop'],
    ]);
    for (const p of t.probes) expect(p.afterTurn).toBe(t.turns.length);
    expect(t.meta?.skipped_qa).toEqual(['qa[8]: no question']);
  });

  it('stringifies numeric answers and plants the fact where the evidence states it', () => {
    const q2 = probe(t, 'q2');
    expect(q2.answer).toBe('2022');
    expect(q2.mustInclude).toEqual([['2022']]);
    expect(q2.facts).toEqual(['D1-4']);
    expect(t.facts.find((f) => f.id === 'D1-4')).toMatchObject({ text: '2022', turn: 2 });
  });

  it('splits comma-list multi-hop answers into parts, each with its own fact', () => {
    const q3 = probe(t, 'q3');
    expect(q3.mustInclude).toEqual([['pottery'], ['camping']]);
    expect(q3.facts).toEqual(['D1-5', 'D2-1']);
    expect(t.facts.find((f) => f.id === 'D2-1')?.turn).toBe(3);
  });

  it('leaves a long comma list to the judge but still finds each part in the evidence', () => {
    const q12 = probe(t, 'q12');
    expect(q12.mustInclude).toEqual([]);
    expect(q12.facts).toEqual(['D1-5', 'D1-6', 'D2-1']);
    expect(t.facts.find((f) => f.id === 'D1-6')?.text).toBe('painting a sunrise');
  });

  it('turns adversarial items into abstention probes with the fixed reference', () => {
    const q4 = probe(t, 'q4');
    expect(q4.answer).toBe(LOCOMO_ABSTENTION_ANSWER);
    expect(q4.mustInclude).toEqual([]);
    expect(q4.facts).toEqual([]);
    expect(q4.meta?.adversarial_answer).toBe('a blue ceramic bowl');
    const q10 = probe(t, 'q10');
    expect(q10.answer).toBe(LOCOMO_ABSTENTION_ANSWER);
    expect(q10.meta?.dataset_answer).toBe('blue');
  });

  it('parses malformed evidence leniently and records what it could not resolve', () => {
    const q5 = probe(t, 'q5');
    expect(q5.facts).toEqual(['D10-1']);
    expect(q5.meta?.unresolved_evidence).toEqual(['D:12', 'D10']);
    expect(q5.meta?.evidence_without_answer).toEqual(['(D2:2) (turn 4)']);
    const q6 = probe(t, 'q6');
    expect(q6.meta?.evidence).toEqual(['D1:1', 'D1:5']);
    expect(q6.facts).toEqual(['D1-5-2']);
    expect(probe(t, 'q11').meta?.unresolved_evidence).toEqual(['D99:1']);
    expect(probe(t, 'q11').facts).toEqual([]);
  });

  it('never invents a fact when the answer is not in the evidence', () => {
    const q8 = probe(t, 'q8');
    expect(q8.facts).toEqual([]);
    expect(q8.meta?.evidence_without_answer).toEqual(['D2:1 (turn 3)']);
    expect(q8.mustInclude).toEqual([]); // six words: the judge decides
  });

  it('leaves must_include empty for long answers and keeps it for short ones', () => {
    expect(probe(t, 'q7').mustInclude).toEqual([]);
    expect(probe(t, 'q1').mustInclude).toEqual([['LGBTQ support group']]);
  });

  it('every fact is stated in the turn it points at', () => {
    for (const tr of [t, t2]) {
      for (const fact of tr.facts) {
        const turn = msg(tr, fact.turn);
        expect(containsPhrase(`${turn.user}\n${turn.assistant ?? ''}`, fact.text), `${tr.id}/${fact.id}`).toBe(true);
      }
      for (const p of tr.probes) for (const id of p.facts) expect(tr.facts.some((f) => f.id === id)).toBe(true);
    }
  });

  it('handles third speakers, non-object lines, unreadable dates and string categories', () => {
    expect(t2.meta?.other_speakers).toEqual(['Rosa']);
    expect(t2.meta?.session_1_skipped_lines).toBe(1);
    expect(msg(t2, 1).assistant).toBe("Gina: No way, I'm starting an online clothing store!\nRosa: Hi both, I'm Gina's sister, just passing by.");
    const s2 = msg(t2, 3);
    expect(s2.at).toBeUndefined();
    expect(s2.meta?.unparsed_date).toBe(true);
    // An unreadable date has no `at:`, so the header keeps it: still once.
    expect(s2.user.startsWith('[Session 2: sometime in late January]\n')).toBe(true);
    expect(probe(t2, 'q2').kind).toBe('temporal');
  });
});

describe('LoCoMo files on disk', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memeval-locomo-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one file per sample that the transcript loader reads back unchanged', async () => {
    const summary = await importBenchmark('locomo', FIXTURE, { out: dir });
    expect(readdirSync(dir).sort()).toEqual(['locomo-conv-mini-1.yaml', 'locomo-conv-mini-2.yaml']);
    expect(summary.probes).toBe(13);
    for (const [i, path] of summary.written.entries()) {
      const loaded = loadTranscriptFile(path);
      const direct = locomoSampleToTranscript(samples[i], i);
      // The file also records what the import did (meta.import), beside the converted sample.
      const imported = await importRecord('locomo', FIXTURE, { out: dir });
      expect({ ...loaded, file: '' }).toEqual({ ...direct, meta: { ...direct.meta, import: imported }, file: '' });
      expect(imported).toMatchObject({ benchmark: 'locomo', file: basename(FIXTURE), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    }
  });
});

describe('facts too generic to track', () => {
  /** Six sessions; "family" is said in five turns, "Lake Tahoe" in one. */
  function sample(familyTurns: number) {
    const conversation: Record<string, unknown> = { speaker_a: 'Ann', speaker_b: 'Bo' };
    for (let n = 1; n <= 6; n++) {
      const text = n <= familyTurns ? `My family came over on day ${n}.` : `Nothing new on day ${n}.`;
      conversation[`session_${n}`] = [
        { speaker: 'Ann', dia_id: `D${n}:1`, text: n === 6 ? 'We went to Lake Tahoe.' : text },
        { speaker: 'Bo', dia_id: `D${n}:2`, text: 'Nice.' },
      ];
      conversation[`session_${n}_date_time`] = `1:00 pm on ${n} May, 2023`;
    }
    const qa = [
      { question: 'Who came over on day 1?', answer: 'family', evidence: ['D1:1'], category: 4 },
      { question: 'Where did Ann go?', answer: 'Lake Tahoe', evidence: ['D6:1'], category: 4 },
      { question: 'Who visits, and where did Ann go?', answer: 'family, Lake Tahoe', evidence: ['D2:1', 'D6:1'], category: 1 },
    ];
    return { sample_id: 'g-1', conversation, qa };
  }

  it(`leaves a fact said in ${GENERIC_FACT_MIN_TURNS} or more turns out of facts and probes, recording it as generic`, () => {
    const t = locomoSampleToTranscript(sample(GENERIC_FACT_MIN_TURNS), 0);
    expect(t.facts.map((f) => f.text)).toEqual(['Lake Tahoe']);
    expect(probe(t, 'q1').facts).toEqual([]);
    expect(probe(t, 'q1').meta?.generic_facts).toEqual(['D1-1']);
    expect(probe(t, 'q2').facts).toEqual(['D6-1']);
    expect(probe(t, 'q3').facts).toEqual(['D6-1']);
    expect(probe(t, 'q3').meta?.generic_facts).toEqual(['D2-1']);
    const generic = t.meta?.generic_facts as { id: string; text: string; meta: Record<string, unknown> }[];
    expect(generic.map((f) => [f.id, f.text, f.meta.generic, f.meta.turns])).toEqual([
      ['D1-1', 'family', true, 5],
      ['D2-1', 'family', true, 5],
    ]);
    expect(genericFactCount(t)).toBe(2);
  });

  it('keeps a fact said in fewer turns', () => {
    const t = locomoSampleToTranscript(sample(GENERIC_FACT_MIN_TURNS - 1), 0);
    expect(t.facts.map((f) => f.text).sort()).toEqual(['Lake Tahoe', 'family', 'family']);
    expect(probe(t, 'q1').facts).toEqual(['D1-1']);
    expect(t.meta?.generic_facts).toBeUndefined();
    expect(genericFactCount(t)).toBe(0);
  });

  it('counts turns by the harness matching rule: whole words, any case', () => {
    const texts = ['my family', 'FAMILY!', 'families', 'familyman', 'the family, again'].map(normalizeText);
    expect(turnsStating(texts, 'Family')).toBe(3);
    expect(turnsStating(texts, '')).toBe(0);
  });

  it('the import summary says how many facts were too generic', () => {
    const summary = { written: ['a'], probes: 3, facts: 1, dropped: { errata: 0, category: 0, type: 0, sample: 0 }, removed: [], quirks: [] };
    expect(summaryLines({ ...summary, genericFacts: 2 }, 'out')).toContain(
      `left out 2 facts too generic to track (their words are said in ${GENERIC_FACT_MIN_TURNS} or more turns of the conversation)`,
    );
    expect(summaryLines({ ...summary, genericFacts: 0 }, 'out').join('\n')).not.toContain('too generic');
  });
});
