import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { containsPhrase } from '../../core/text.js';
import { TokenCounter } from '../../core/tokens.js';
import { loadTranscriptFile } from '../../harness/datasets/transcript.js';
import type { MessageTurn, Transcript } from '../../core/types.js';
import { transcriptToYaml } from '../../harness/datasets/yaml-write.js';
import { ABSTENTION_ANSWER, generateCommand, generateSuite, generateTranscript } from '../../scripts/generate.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'memeval-gen-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function messages(t: Transcript): MessageTurn[] {
  return t.turns.map((turn) => {
    if (turn.kind !== 'message') throw new Error('generator writes message turns only');
    return turn;
  });
}

function said(turn: MessageTurn): string {
  return `${turn.user}\n${turn.assistant ?? ''}`;
}

describe('generateTranscript', () => {
  const t = generateTranscript({ turns: 200, seed: 7 });

  it('is deterministic per seed and differs between seeds', () => {
    expect(transcriptToYaml(generateTranscript({ turns: 200, seed: 7 }))).toBe(transcriptToYaml(t));
    expect(transcriptToYaml(generateTranscript({ turns: 200, seed: 8 }))).not.toBe(transcriptToYaml(t));
  });

  it('honours the requested number of turns, tool cadence and exact tool output size', () => {
    const g = generateTranscript({ turns: 57, seed: 3, toolEvery: 4, toolOutputChars: 1234 });
    expect(g.turns).toHaveLength(57);
    messages(g).forEach((turn, i) => {
      const n = i + 1;
      expect(turn.toolCalls.length, `turn ${n}`).toBe(n % 4 === 0 ? 1 : 0);
      for (const call of turn.toolCalls) expect(call.output).toHaveLength(1234);
    });
    const none = generateTranscript({ turns: 20, seed: 3, toolEvery: 0 });
    expect(messages(none).every((turn) => turn.toolCalls.length === 0)).toBe(true);
  });

  it('keeps text close to the requested tokens per turn', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    for (const target of [60, 120, 400]) {
      const g = generateTranscript({ turns: 100, seed: 11, tokensPerTurn: target, toolEvery: 0 });
      const mean = messages(g).reduce((n, turn) => n + counter.text(turn.user) + counter.text(turn.assistant ?? ''), 0) / g.turns.length;
      expect(mean, `target ${target}`).toBeGreaterThan(target * 0.85);
      expect(mean, `target ${target}`).toBeLessThan(target * 1.15);
    }
  });

  it('plants the requested facts, updates, multi-hop and temporal pairs', () => {
    const g = generateTranscript({ turns: 300, seed: 5, facts: 9, updates: 3, distractors: 4, multiHop: 2, temporal: 2, abstentions: 2 });
    expect(g.facts).toHaveLength(9 + 3 + 2 * 2 + 2 * 2);
    expect(g.facts.filter((f) => f.supersededBy !== undefined)).toHaveLength(3);
    expect(g.meta?.distractors).toHaveLength(4);
    const kinds = g.probes.map((p) => p.kind);
    expect(kinds.filter((k) => k === 'recall')).toHaveLength(6);
    expect(kinds.filter((k) => k === 'update')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'multi-hop')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'temporal')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'abstention')).toHaveLength(2);
  });

  it('states every planted fact verbatim at its turn and never before it', () => {
    for (const seed of [1, 2, 3, 4]) {
      const g = generateTranscript({ turns: 150, seed, facts: 10, updates: 3, distractors: 6, multiHop: 2, temporal: 2 });
      const turns = messages(g);
      for (const fact of g.facts) {
        expect(containsPhrase(said(turns[fact.turn - 1]), fact.text), `${seed}/${fact.id}`).toBe(true);
        for (let n = 1; n < fact.turn; n++) expect(containsPhrase(said(turns[n - 1]), fact.text), `${seed}/${fact.id} early at ${n}`).toBe(false);
        for (const call of turns.flatMap((turn) => turn.toolCalls)) expect(containsPhrase(call.output, fact.text)).toBe(false);
      }
    }
  });

  it('states distractors as near misses that never match their fact', () => {
    const g = generateTranscript({ turns: 120, seed: 9, facts: 8, distractors: 8 });
    const turns = messages(g);
    for (const d of g.meta?.distractors as { turn: number; text: string; near: string }[]) {
      const fact = g.facts.find((f) => f.id === d.near);
      expect(fact).toBeDefined();
      expect(d.text).not.toBe(fact?.text);
      expect(d.turn).toBeGreaterThan(fact?.turn ?? Infinity);
      expect(containsPhrase(said(turns[d.turn - 1]), d.text)).toBe(true);
      expect(containsPhrase(d.text, fact?.text ?? '')).toBe(false);
    }
  });

  it('asks probes about existing facts, after they were stated', () => {
    const ids = new Set(t.facts.map((f) => f.id));
    for (const p of t.probes) {
      expect(p.afterTurn).toBe(t.turns.length);
      for (const id of p.facts) expect(ids.has(id), `${p.id} → ${id}`).toBe(true);
      if (p.kind === 'abstention') {
        expect(p).toMatchObject({ answer: ABSTENTION_ANSWER, mustInclude: [], facts: [] });
        continue;
      }
      expect(p.facts.length).toBeGreaterThan(0);
      if (p.kind === 'temporal') continue;
      // The reply must name a value some referenced fact states.
      const texts = p.facts.map((id) => t.facts.find((f) => f.id === id)?.text);
      for (const entry of p.mustInclude) expect(texts).toContain(entry[0]);
    }
    for (const p of t.probes.filter((x) => x.kind === 'update')) {
      const fresh = t.facts.find((f) => f.id === p.facts[0]);
      const stale = t.facts.find((f) => f.supersededBy === fresh?.id);
      expect(stale && fresh && stale.turn < fresh.turn).toBe(true);
      expect(p.mustInclude).toEqual([[fresh?.text]]);
    }
    for (const p of t.probes.filter((x) => x.kind === 'temporal')) {
      const [a, b] = p.facts.map((id) => t.facts.find((f) => f.id === id));
      const event = p.mustInclude[0][0];
      expect([a?.meta?.event, b?.meta?.event]).toContain(event);
    }
  });

  it('puts facts at the requested depths', () => {
    const g = generateTranscript({ turns: 100, seed: 2, facts: 3, updates: 0, distractors: 0, multiHop: 0, temporal: 0, depths: [0, 0.5, 0.99] });
    expect(g.facts.map((f) => f.turn)).toEqual([1, 51, 100]);
  });

  it('asks abstention questions about details that were never planted', () => {
    const g = generateTranscript({ turns: 80, seed: 4, abstentions: 3 });
    const asked = new Set(g.probes.filter((p) => p.kind !== 'abstention').map((p) => p.question));
    for (const p of g.probes.filter((x) => x.kind === 'abstention')) expect(asked.has(p.question)).toBe(false);
  });

  it('refuses impossible requests with a clear message', () => {
    expect(() => generateTranscript({ turns: 10, seed: 1, facts: 1, updates: 2 })).toThrow(/updates \(2\) cannot exceed facts \(1\)/);
    expect(() => generateTranscript({ turns: 0, seed: 1 })).toThrow(/turns/);
    expect(() => generateTranscript({ turns: 10, seed: 1, depths: [1.5] })).toThrow(/depths/);
  });

  it('builds long transcripts', () => {
    const g = generateTranscript({ turns: 10_000, seed: 1 });
    expect(g.turns).toHaveLength(10_000);
    expect(g.facts.every((f) => f.turn >= 1 && f.turn <= 10_000)).toBe(true);
  });
});

describe('generateSuite and the command line', () => {
  it('makes count distinct transcripts with stable ids', () => {
    const suite = generateSuite({ count: 3, turns: 30, seed: 7 });
    expect(suite.map((t) => t.id)).toEqual(['synthetic-s7-t30-1', 'synthetic-s7-t30-2', 'synthetic-s7-t30-3']);
    expect(new Set(suite.map((t) => transcriptToYaml({ ...t, id: 'x' }))).size).toBe(3);
  });

  it('writes byte-identical files for the same arguments, and the loader reads them back unchanged', async () => {
    const args = ['--turns', '40', '--seed', '7', '--count', '2', '--tool-every', '5', '--tool-output-chars', '300'];
    const a = join(dir, 'a');
    const b = join(dir, 'b');
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await generateCommand([...args, '--out', a])).toBe(0);
      expect(await generateCommand([...args, '--out', b])).toBe(0);
    } finally {
      stdout.mockRestore();
    }
    const files = readdirSync(a).sort();
    expect(files).toEqual(['synthetic-s7-t40-1.yaml', 'synthetic-s7-t40-2.yaml']);
    const suite = generateSuite({ count: 2, turns: 40, seed: 7, toolEvery: 5, toolOutputChars: 300 });
    files.forEach((name, i) => {
      expect(readFileSync(join(a, name))).toEqual(readFileSync(join(b, name)));
      const loaded = loadTranscriptFile(join(a, name));
      expect({ ...loaded, file: '' }).toEqual({ ...suite[i], file: '' });
    });
  });

  it('returns 2 with a message for bad arguments', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await generateCommand(['--turns', '10', '--seed', '1'])).toBe(2);
      expect(await generateCommand(['--turns', 'ten', '--seed', '1', '--out', dir])).toBe(2);
      expect(await generateCommand(['--turns', '10', '--seed', '1', '--out', dir, '--bogus', '1'])).toBe(2);
      expect(String(stderr.mock.calls[0][0])).toMatch(/^generate: --out DIR is required/);
    } finally {
      stderr.mockRestore();
    }
  });
});
