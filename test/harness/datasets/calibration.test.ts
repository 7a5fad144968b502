// The calibration set's files: the bundled set loads, and every problem has its file:line:col.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCalibrationSet, parseCalibrationFile } from '../../../harness/datasets/calibration.js';
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

