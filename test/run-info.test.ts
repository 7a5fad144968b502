import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeCalibration, newRunId } from '../harness/run-info.js';
import { defaultConfig } from '../harness/config.js';

describe('run labels', () => {
  it('names a run by UTC time and a short hash', () => {
    const id = newRunId(defaultConfig('/tmp'), new Date('2026-01-02T03:04:05.678Z'));
    expect(id).toMatch(/^20260102T030405Z-[0-9a-f]{6}$/);
  });

  it("carries the judge's calibration when one is on record, and nothing otherwise", () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-cal-'));
    expect(judgeCalibration('openai:judge-x', dir)).toBeUndefined();
    mkdirSync(join(dir, '.memeval', 'calibration'), { recursive: true });
    const report = {
      judge: 'openai:judge-x',
      createdAt: '2026-11-01T00:00:00Z',
      items: 22,
      criteria: [{ criterion: 'coverage', n: 22, agree: 20, accuracy: 0.91, kappa: 0.8, ci: [0.6, 0.95], humanPass: 11, judgePass: 12 }],
    };
    writeFileSync(join(dir, '.memeval', 'calibration', 'openai_judge-x.json'), JSON.stringify(report));
    expect(judgeCalibration('openai:judge-x', dir)).toEqual({
      createdAt: '2026-11-01T00:00:00Z',
      items: 22,
      criteria: [{ criterion: 'coverage', accuracy: 0.91, kappa: 0.8, ci: [0.6, 0.95] }],
    });
  });
});
