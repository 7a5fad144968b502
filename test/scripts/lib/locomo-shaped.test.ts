import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBenchmark, locomoSampleToTranscript } from '../../../harness/datasets/importers/index.js';
import { generateLocomoShaped, locomoShapedJson, type LocomoSample } from '../../../scripts/lib/locomo-shaped.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-locomo-shaped-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const utterances = (s: LocomoSample): number => Object.values(s.conversation).reduce((n, v) => n + (Array.isArray(v) ? v.length : 0), 0);
const sessions = (s: LocomoSample): number => Object.keys(s.conversation).filter((k) => /^session_\d+$/.test(k)).length;

describe('generateLocomoShaped', () => {
  const two = generateLocomoShaped({ seed: 3, samples: 2 });

  it('is deterministic per seed and differs between seeds', () => {
    expect(locomoShapedJson({ seed: 3, samples: 2 })).toBe(locomoShapedJson({ seed: 3, samples: 2 }));
    expect(locomoShapedJson({ seed: 4, samples: 2 })).not.toBe(locomoShapedJson({ seed: 3, samples: 2 }));
  });

  it('writes samples of the published shapes: sessions, utterances, questions, dated sessions, varied text', () => {
    expect(two.map(sessions)).toEqual([19, 19]);
    expect(two.map(utterances)).toEqual([419, 369]);
    expect(two.map((s) => s.qa.length)).toEqual([199, 105]);
    for (const s of two) {
      for (let n = 1; n <= sessions(s); n++) expect(s.conversation[`session_${n}_date_time`]).toMatch(/^\d{1,2}:\d{2} [ap]m on \d{1,2} [A-Z][a-z]+, \d{4}$/);
      const lines = Object.values(s.conversation).flatMap((v) => (Array.isArray(v) ? v : []));
      expect(lines.every((l) => /^D\d+:\d+$/.test(l.dia_id))).toBe(true);
      expect(lines.some((l) => l.blip_caption !== undefined && l.img_url !== undefined)).toBe(true);
      // Not one sentence repeated: most lines are distinct.
      expect(new Set(lines.map((l) => l.text)).size).toBeGreaterThan(lines.length * 0.8);
      expect(s.qa.filter((q) => q.category === 5).every((q) => q.answer === undefined && q.adversarial_answer !== undefined)).toBe(true);
      expect(Object.keys(s.session_summary)).toHaveLength(sessions(s));
      expect(Object.keys(s.observation)).toHaveLength(sessions(s));
      expect(Object.keys(s.event_summary)).toHaveLength(sessions(s));
    }
  });

  it('is accepted by the LoCoMo importer: every question a probe, every evidence id resolved', () => {
    two.forEach((sample, i) => {
      const t = locomoSampleToTranscript(sample, i);
      expect(t.probes).toHaveLength(sample.qa.length);
      expect(t.meta?.skipped_qa).toBeUndefined();
      expect(t.probes.some((p) => p.meta?.unresolved_evidence !== undefined)).toBe(false);
      expect(t.probes.filter((p) => p.kind === 'abstention')).toHaveLength(sample.qa.filter((q) => q.category === 5).length);
      expect(t.facts.length).toBeGreaterThan(0);
    });
  });

  it('imports as a file: one transcript per sample, one probe per question', async () => {
    const file = join(dir, 'locomo-shaped.json');
    writeFileSync(file, locomoShapedJson({ seed: 3, samples: 2 }));
    const summary = await importBenchmark('locomo', file, { out: join(dir, 'data') });
    expect(summary.written).toHaveLength(2);
    expect(summary.probes).toBe(199 + 105);
    expect(readdirSync(join(dir, 'data')).filter((f) => f.endsWith('.yaml'))).toHaveLength(2);
  });

  it('at its default of 10 samples is the size of locomo10.json: 5,882 utterances, 1,986 questions, about 2.8 MB', () => {
    const all = generateLocomoShaped({ seed: 1 });
    expect(all).toHaveLength(10);
    expect(all.reduce((n, s) => n + utterances(s), 0)).toBe(5882);
    expect(all.reduce((n, s) => n + s.qa.length, 0)).toBe(1986);
    const bytes = Buffer.byteLength(locomoShapedJson({ seed: 1 }));
    expect(bytes).toBeGreaterThan(2.5e6);
    expect(bytes).toBeLessThan(3.2e6);
  });
});
