// The calibration set's files: the bundled set loads, and every problem has its file:line:col.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANSWER_LABELS } from '../../../graders/calibrate.js';
import { loadAnswerCalibrationSet, loadCalibrationSet, parseAnswerCalibrationFile, parseCalibrationFile } from '../../../harness/datasets/calibration.js';
import type { Problem } from '../../../core/errors.js';

describe('calibration set files', () => {
  it('loads the bundled set (≥ 18 labelled summaries of every category)', () => {
    const items = loadCalibrationSet(join(process.cwd(), 'datasets/calibration'));
    expect(items.length).toBeGreaterThanOrEqual(18);
    const categories = new Set(items.map((i) => i.category));
    for (const c of ['good', 'vague', 'wrong', 'format']) expect(categories).toContain(c);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });

  it('reports every problem with file:line:col', () => {
    const text = [
      'id: bad',
      'source:',
      '  - user: hi',
      '    asistant: hello',
      'facts:',
      '  - { id: a, text: x, turn: 1, superseded_by: nope }',
      'summaries:',
      '  - id: s1',
      '    text: x',
      '    labels: { coverage: yes, faithfulness: pass, temporal: pass, format: pass, overall: 6 }',
    ].join('\n');
    const problems: Problem[] = [];
    expect(parseCalibrationFile(text, 'bad.yaml', problems)).toEqual([]);
    const lines = problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.yaml:4:5: unknown key "asistant".*did you mean "assistant"/),
        expect.stringMatching(/^bad\.yaml:6:\d+: fact "a" is superseded_by "nope", which is not a fact in this transcript/),
        expect.stringMatching(/^bad\.yaml:10:\d+: "coverage" in labels of summary 1 must be pass or fail/),
        expect.stringMatching(/^bad\.yaml:10:\d+: "overall" .* must be between 1 and 5, not 6/),
      ]),
    );
  });
});


describe('labelled answer files', () => {
  it('loads the bundled set: ≥ 40 answers, every label, every probe kind', () => {
    const items = loadAnswerCalibrationSet(join(process.cwd(), 'datasets/calibration/answers'));
    expect(items.length).toBeGreaterThanOrEqual(40);
    expect(new Set(items.map((i) => i.label))).toEqual(new Set(ANSWER_LABELS));
    expect(new Set(items.map((i) => i.probe.kind))).toEqual(new Set(['recall', 'update', 'temporal', 'multi-hop', 'abstention']));
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    expect(items.find((i) => i.id === 'vpn-gateway/gateway/old')).toMatchObject({ label: 'stale', answer: 'Connect to vpn-eu1.corp.example.', probe: { mustInclude: [['vpn-eu2']] } });
  });

  it('reports every problem with file:line:col', () => {
    const text = [
      'probes:',
      '  - id: gw',
      '    kind: recal',
      '    question: Which gateway?',
      '    answer: vpn-eu2',
      '    answers:',
      '      - { id: a, label: correct, text: vpn-eu2 }',
      '      - { id: a, label: wrong, text: vpn-eu1 }',
      '      - { id: t, lable: correct, text: x }',
      '  - id: room',
      '    kind: abstention',
      '    question: Which room?',
      '    answer: never given',
      '    must_include: ["--"]',
      '    answers:',
      '      - { id: s, label: stale, text: room 12 }',
    ].join('\n');
    const problems: Problem[] = [];
    expect(parseAnswerCalibrationFile(text, 'ans.yaml', problems)).toEqual([]);
    const lines = problems.map((p) => `${p.file}:${p.line}:${p.col}: ${p.message}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ans\.yaml:3:11: "kind" in probe "gw" must be one of .*recall/),
        expect.stringMatching(/^ans\.yaml:8:\d+: duplicate answer id "a" in probe "gw" \(first defined at ans\.yaml:7:\d+\)/),
        expect.stringMatching(/^ans\.yaml:8:\d+: "label" in answer "a" of probe "gw" must be one of .*wrong-on-topic/),
        expect.stringMatching(/^ans\.yaml:9:\d+: unknown key "lable".*did you mean "label"/),
        expect.stringMatching(/^ans\.yaml:14:\d+: "--" .*has no letters or digits/),
        expect.stringMatching(/^ans\.yaml:16:\d+: answer "s" of probe "room": label stale needs a probe whose answer is known/),
      ]),
    );
  });
});
