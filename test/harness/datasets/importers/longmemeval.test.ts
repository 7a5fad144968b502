import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBenchmark, importRecord } from '../../../../harness/datasets/importers/index.js';
import { longMemEvalToTranscript, parseLongMemEvalDate } from '../../../../harness/datasets/importers/longmemeval.js';
import { containsPhrase } from '../../../../core/text.js';
import { loadTranscriptFile } from '../../../../harness/datasets/transcript.js';
import type { MessageTurn, Transcript } from '../../../../core/types.js';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/importers/longmemeval-mini.json');
const instances = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];
const [user, update, abstain, multi, pref] = instances.map((x, i) => longMemEvalToTranscript(x, i));

function msg(t: Transcript, n: number): MessageTurn {
  const turn = t.turns[n - 1];
  if (turn.kind !== 'message') throw new Error('expected a message turn');
  return turn;
}

describe('LongMemEval conversion', () => {
  it('parses the LongMemEval date format', () => {
    expect(parseLongMemEvalDate('2023/05/20 (Sat) 02:21')).toBe('2023-05-20T02:21:00');
    expect(parseLongMemEvalDate('2023/05/20')).toBe('2023-05-20T00:00:00');
    expect(parseLongMemEvalDate('2023/02/30 (Thu) 10:00')).toBeUndefined();
    expect(parseLongMemEvalDate('yesterday')).toBeUndefined();
  });

  it('replays haystack sessions in date order, each opening with its date', () => {
    const heads = user.turns.filter((t) => t.meta?.session_id !== undefined).map((t) => t.meta?.session_id);
    expect(heads).toEqual(['answer_a1b2_1', 'sharegpt_x1', 'ultrachat_y2']);
    expect(msg(user, 1).at).toBe('2023-05-20T02:21:00');
    // The date is in `at:` only (shown as a `[date]` prefix), not repeated in the header.
    expect(msg(user, 1).user).toBe('[Session 1]\nI just bought new running shoes from Target and they feel great.');
  });

  it('pairs user and assistant messages, joining consecutive assistant replies', () => {
    expect(msg(user, 2)).toMatchObject({ user: 'About twenty.', assistant: "That's a solid base.\n\nRemember to replace shoes every 300 to 500 miles." });
  });

  it('gives a session that opens with the assistant a header-only user message', () => {
    const t = msg(user, 4);
    expect(t.user).toBe('[Session 3]');
    expect(t.assistant).toBe('Welcome back! What would you like to talk about today?');
  });

  it('asks one probe after the last turn, with the question date in front', () => {
    expect(user.probes).toHaveLength(1);
    const p = user.probes[0];
    expect(p.afterTurn).toBe(user.turns.length);
    expect(p.question).toBe('[Current date: 2023/05/30 (Tue) 23:40]\nWhich store did I buy my new running shoes from?');
    expect(p.meta?.question).toBe('Which store did I buy my new running shoes from?');
    expect(p).toMatchObject({ kind: 'recall', answer: 'Target', mustInclude: [['Target']], facts: ['answer-t1'] });
  });

  it('turns has_answer messages into facts only where they state the answer', () => {
    expect(update.facts).toEqual([{ id: 'answer-t2', text: '3', aliases: [], turn: 2, critical: false }]);
    expect(update.probes[0]).toMatchObject({ kind: 'update', answer: '3', mustInclude: [['3']], facts: ['answer-t2'] });
    expect(update.probes[0].meta?.evidence_turns).toEqual([1]);
    expect(multi.facts).toEqual([]);
    expect(multi.probes[0].meta?.evidence_turns).toEqual([1, 2]);
  });

  it('maps question types to kinds and _abs ids to abstention', () => {
    expect(abstain.probes[0].kind).toBe('abstention');
    expect(abstain.probes[0].mustInclude).toEqual([]);
    expect(abstain.tags).toEqual(['longmemeval', 'temporal-reasoning', 'abstention']);
    expect(multi.probes[0].kind).toBe('multi-hop');
    expect(pref.probes[0].kind).toBe('recall');
  });

  it('reads an _abs anywhere in the id as abstention, as the official scripts test it (a substring)', () => {
    const t = longMemEvalToTranscript({ ...(instances[0] as Record<string, unknown>), question_id: 'q_abs_2' }, 0);
    expect(t.probes[0].kind).toBe('abstention');
  });

  it("reads a question_type named like an Object member as an unknown type, not Object's", () => {
    for (const questionType of ['constructor', 'toString', '__proto__']) {
      const t = longMemEvalToTranscript({ ...(instances[0] as Record<string, unknown>), question_type: questionType }, 0);
      expect(t.probes[0].kind, questionType).toBe('recall');
      expect(t.probes[0].meta?.unknown_question_type, questionType).toBe(true);
    }
  });

  it('leaves must_include to the judge for long answers', () => {
    expect(multi.probes[0].mustInclude).toEqual([]);
    expect(pref.probes[0].mustInclude).toEqual([]);
  });

  it('notes empty sessions', () => {
    expect(multi.meta?.empty_sessions).toEqual(['empty_one']);
    expect(multi.turns).toHaveLength(2);
  });

  it('every fact is stated in its turn', () => {
    for (const t of [user, update, abstain, multi, pref]) {
      for (const f of t.facts) {
        const turn = msg(t, f.turn);
        expect(containsPhrase(`${turn.user}\n${turn.assistant ?? ''}`, f.text)).toBe(true);
      }
    }
  });
});

describe('LongMemEval files on disk', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'memeval-lme-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one file per instance that the loader reads back unchanged', async () => {
    const summary = await importBenchmark('longmemeval', FIXTURE, { out: dir });
    expect(summary.written.map((p) => p.slice(dir.length + 1))).toEqual([
      'lme-a1b2c3.yaml',
      'lme-ku-0007.yaml',
      'lme-tr-0042_abs.yaml',
      'lme-ms-0100.yaml',
      'lme-pref-9.yaml',
    ]);
    for (const [i, path] of summary.written.entries()) {
      const loaded = loadTranscriptFile(path);
      const direct = longMemEvalToTranscript(instances[i], i);
      const imported = await importRecord('longmemeval', FIXTURE, { out: dir });
      expect({ ...loaded, file: '' }).toEqual({ ...direct, meta: { ...direct.meta, import: imported }, file: '' });
    }
  });
});
