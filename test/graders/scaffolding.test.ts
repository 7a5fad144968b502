// Grading never sees the harness's own scaffolding: a reader that copies a
// timestamp prefix or a session header out of an imported conversation has
// answered nothing, even when the header holds the number the question asks for.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentDateLine, itemText, sessionHeader, stampedText, turnItems, withoutScaffolding } from '../../core/items.js';
import type { Model } from '../../core/model.js';
import type { Probe, Transcript } from '../../core/types.js';
import { LlmAnswerJudge, offlineVerdict } from '../../graders/answer-judge.js';
import { answerContent, isAbstention, mustIncludePass, tokenF1 } from '../../graders/exact.js';
import { locomoSampleToTranscript } from '../../harness/datasets/importers/locomo.js';
import { longMemEvalToTranscript } from '../../harness/datasets/importers/longmemeval.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/importers');
const fixture = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as unknown[];
const transcripts: Transcript[] = [
  ...fixture('locomo-mini.json').map((s, i) => locomoSampleToTranscript(s, i)),
  ...fixture('longmemeval-mini.json').map((x, i) => longMemEvalToTranscript(x, i)),
];

/** The first line of every turn's user message as the model is sent it: `[at] [Session n: date]`, or part of it. */
function openingLines(t: Transcript): string[] {
  return t.turns.map((turn, i) => itemText(turnItems(turn, i + 1)[0]).split('\n')[0]);
}

/** Answers made only of scaffolding, in every form a reader could copy it: stamp, header, both, several. */
function scaffoldingAnswers(t: Transcript): string[] {
  const answers = new Set<string>();
  t.turns.forEach((turn, i) => {
    if (turn.kind !== 'message') return;
    const opening = itemText(turnItems(turn, i + 1)[0]).split('\n')[0];
    const header = turn.user.split('\n')[0];
    if (turn.at !== undefined) answers.add(stampedText('', turn.at));
    if (/^\[Session /.test(header)) answers.add(header);
    if (turn.at !== undefined && /^\[Session /.test(header)) answers.add(opening);
  });
  const all = [...answers];
  answers.add(all.join(' '));
  answers.add(all.join('\n'));
  for (const p of t.probes) {
    const line = p.question.split('\n')[0];
    if (line.startsWith('[Current date:')) answers.add(line);
  }
  return [...answers];
}

/** Probes that a scaffolding answer would pass if grading read it: each word of it as a must_include, and each as the reference. */
function baitProbes(answer: string): Probe[] {
  const words = [...new Set(answer.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0))];
  const base = { afterTurn: 1, question: 'How many?', facts: [] };
  return [
    ...words.map((w, i): Probe => ({ ...base, id: `word-${i}`, answer: w, mustInclude: [[w]], kind: 'recall' })),
    { ...base, id: 'whole', answer, mustInclude: [[answer]], kind: 'temporal' },
    { ...base, id: 'f1', answer, mustInclude: [], kind: 'recall' },
    { ...base, id: 'abstain', answer: 'Not mentioned in the conversation.', mustInclude: [], kind: 'abstention' },
  ];
}

/** The deterministic verdicts a probe record gets (`exact` and the offline judge), plus F1 at the offline judge's threshold. */
function passesSomething(probe: Probe, answer: string, transcript: Transcript): string[] {
  const passed: string[] = [];
  if (offlineVerdict({ transcript, probe, answer }).verdict === 'pass') passed.push('offline judge');
  if (mustIncludePass(answer, probe.mustInclude, probe.answer)) passed.push('must_include');
  if (isAbstention(answer)) passed.push('abstention');
  if (tokenF1(answer, probe.answer) > 0) passed.push('f1');
  return passed;
}

describe('answers made only of scaffolding', () => {
  it('the imported fixtures have dated, headed sessions to copy from', () => {
    const lines = transcripts.flatMap(openingLines);
    expect(lines.some((l) => /^\[\d{4}-\d{2}-\d{2}T[\d:]+\] \[Session \d+/.test(l))).toBe(true);
    expect(lines.some((l) => /^\[Session \d+: /.test(l))).toBe(true);
    // The LongMemEval knowledge-update probe asks "how many" and its answer is 3: a header "[Session 3 …]" holds it.
    const howMany = transcripts.flatMap((t) => t.probes).find((p) => p.mustInclude.some((alts) => alts.includes('3')));
    expect(howMany).toBeDefined();
  });

  for (const t of transcripts) {
    it(`pass no probe of ${t.id}, nor a probe baited with their own words`, () => {
      const answers = scaffoldingAnswers(t);
      expect(answers.length).toBeGreaterThan(2);
      for (const answer of answers) {
        expect(answerContent(answer), answer).toBe('');
        for (const probe of [...t.probes, ...baitProbes(answer)]) {
          expect(passesSomething(probe, answer, t), `${probe.id} answered ${JSON.stringify(answer)}`).toEqual([]);
        }
      }
    });
  }

  it('without the stripping, the bait would pass: the scaffolding holds the words', () => {
    for (const t of transcripts) {
      for (const answer of scaffoldingAnswers(t)) {
        // The same words, no longer in the scaffolding's brackets.
        const unbracketed = answer.replace(/\[/g, '(').replace(/\]/g, ')');
        const passed = baitProbes(answer).filter((p) => passesSomething(p, unbracketed, t).includes('offline judge'));
        expect(passed.length, answer).toBeGreaterThan(0);
      }
    }
    // The case seen in real data: "how many … now? → 3" answered with a stamp and the third session's header.
    const ku = transcripts.find((x) => x.id === 'lme-ku-0007')!;
    const copied = stampedText(sessionHeader(3, '2023/07/30 (Sun) 10:00'), '2023-07-30T10:00:00');
    expect(offlineVerdict({ transcript: ku, probe: ku.probes[0], answer: copied.replace(/\[/g, '(') }).verdict).toBe('pass');
    expect(offlineVerdict({ transcript: ku, probe: ku.probes[0], answer: copied }).verdict).toBe('fail');
  });

  it('fail the LLM judge without a call, even if the model would say yes', async () => {
    let calls = 0;
    const model: Model = {
      id: 'stub-judge',
      params: {},
      async complete() {
        calls++;
        return { output: '{"verdict":"yes","reason":"matches"}', usage: { inputTokens: 1, outputTokens: 1 }, cached: false, latencyMs: 1 };
      },
    };
    const judge = new LlmAnswerJudge(model);
    const t = transcripts[0];
    for (const answer of scaffoldingAnswers(t).slice(0, 3)) {
      const v = await judge.grade({ transcript: t, probe: t.probes[0], answer });
      expect(v.verdict).toBe('fail');
    }
    expect(calls).toBe(0);
    // A real answer still reaches the model, as written.
    expect((await judge.grade({ transcript: t, probe: t.probes[0], answer: '[2023-05-08T13:56:00] LGBTQ support group' })).verdict).toBe('pass');
    expect(calls).toBe(1);
  });
});

describe('real answers next to scaffolding', () => {
  const t = transcripts[0];
  const probe: Probe = { id: 'kids', afterTurn: 1, question: 'How many kids?', answer: '3', mustInclude: [['3']], facts: [], kind: 'recall' };

  it.each([
    '[2023-05-08T13:56:00] She has 3 kids.',
    '[2023-05-08T13:56:00] [Session 2: 8 May, 2023]\nShe has 3 kids.',
    '[Session 3] 3',
    'As said on [2023-05-08T13:56:00], 3.',
  ])('pass when the value is said outside the scaffolding: %j', (answer) => {
    expect(offlineVerdict({ transcript: t, probe, answer }).verdict).toBe('pass');
    expect(mustIncludePass(answer, probe.mustInclude, probe.answer)).toBe(true);
  });

  it.each(['[2023-05-08T13:56:00] [Session 3: 8 May, 2023]', '[Session 3]', '[2023-03-03T03:03:00]'])('fail when the value is only in the scaffolding: %j', (answer) => {
    expect(offlineVerdict({ transcript: t, probe, answer }).verdict).toBe('fail');
    expect(mustIncludePass(answer, probe.mustInclude, probe.answer)).toBe(false);
  });

  it('an abstention after a stamp still abstains; a stamp alone does not', () => {
    const abstain: Probe = { ...probe, kind: 'abstention', answer: 'Not mentioned.', mustInclude: [] };
    expect(offlineVerdict({ transcript: t, probe: abstain, answer: "[2023-05-08T13:56:00] I don't know." }).verdict).toBe('pass');
    expect(offlineVerdict({ transcript: t, probe: abstain, answer: '[2023-05-08T13:56:00] ' }).verdict).toBe('fail');
    expect(offlineVerdict({ transcript: t, probe: abstain, answer: '' }).verdict).toBe('fail');
  });

  it('F1 is computed on what the answer says', () => {
    expect(tokenF1('[2023-05-08T13:56:00] [Session 2: 8 May, 2023]\nLGBTQ support group', 'LGBTQ support group')).toBe(1);
  });
});

describe('withoutScaffolding', () => {
  // ISO 8601 forms of `at:`: what the docs ask for and the importers write.
  it.each(['2023-05-08T13:56:00', '2025-03-02T10:32:00Z', '2025-03-02T10:32:00.123+02:00', '2025-03-02T10:32-0500', '2025-03-02', '2025-03-02 10:32'])(
    'removes what stampedText writes for at: %j',
    (at) => {
      expect(withoutScaffolding(stampedText('', at))).toBe('');
      expect(withoutScaffolding(stampedText('Oslo', at))).toBe('Oslo');
    },
  );

  it('removes what sessionHeader and currentDateLine write', () => {
    expect(withoutScaffolding(sessionHeader(3))).toBe('');
    expect(withoutScaffolding(sessionHeader(12, '1:56 pm on 8 May, 2023'))).toBe('');
    expect(withoutScaffolding(sessionHeader(1, '2023/05/20 (Sat) 02:21'))).toBe('');
    expect(withoutScaffolding(currentDateLine('2023/05/30 (Tue) 23:40'))).toBe('');
    expect(withoutScaffolding(`${stampedText(sessionHeader(2, '2023/05/20 (Sat) 02:21'), '2023-05-20T02:21:00')}\nhi`)).toBe('\nhi');
  });

  it.each([
    '[3]',
    'see [1] and [2]',
    '[shares a photo of a bowl]',
    '[Sessions 3]',
    'Session 3',
    '[draft]',
    'x[y]z',
    // Date.parse reads these as dates; they are content (a log line's process id, a ticket).
    '2026-04-18 02:52:03.341 UTC [41877] reporting-etl ERROR',
    '[ticket 4471]',
    '[INC-2024]',
    // An `at:` that is not ISO 8601 is shown as written and not recognised (documented).
    stampedText('x', 'May 8, 2023'),
  ])('leaves other bracketed text alone: %j', (text) => {
    expect(withoutScaffolding(text)).toBe(text);
  });
});
