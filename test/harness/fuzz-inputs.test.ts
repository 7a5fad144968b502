// Seeded mutation fuzzing of the loaders: every mutated file must either load
// (and then satisfy the loader's invariants) or throw an InputError whose
// problems all carry a position. Any other exception is a loader bug.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadConfig, parseConfig, type SuiteConfig } from '../../harness/config.js';
import { InputError, isInputError } from '../../core/errors.js';
import { loadTranscriptFile, parseTranscript } from '../../harness/datasets/transcript.js';
import { firstBadSequence } from '../../harness/schema/files.js';
import type { AgentInputItem, Transcript } from '../../core/types.js';
import { MemoryStrategy } from '../../strategies/base.js';
import type { StrategyDefinition, StrategyOptions } from '../../strategies/registry.js';
import { STRATEGIES } from '../../strategies/index.js';
import { seededRandom } from '../../core/random.js';

const ROOT = resolve(import.meta.dirname, '../..');

class KeepAll extends MemoryStrategy {
  protected view(): AgentInputItem[] {
    return [...this.history];
  }
}

const definition1: StrategyDefinition = {
  use: 'fuzz-window',
  doc: 'fuzz definition',
  options: {
    max_turns: { type: 'int', required: true, min: 1, max: 1000, doc: 'turns kept' },
    ratio: { type: 'number', min: 0, max: 1, default: 0.5, doc: 'share' },
    flag: { type: 'boolean', default: false, doc: 'flag' },
    name: { type: 'string', doc: 'name' },
  },
  create: () => new KeepAll(),
};

const definition2: StrategyDefinition = {
  use: 'fuzz-summary',
  doc: 'fuzz definition with a summarizer',
  options: {
    context_limit: { type: 'int', required: true, min: 1, doc: 'limit' },
    keep: { type: 'int', required: true, min: 0, doc: 'kept' },
    summarizer: { type: 'summarizer', doc: 'summarizer' },
  },
  check: (o: StrategyOptions) => (Number(o.keep) > Number(o.context_limit) ? ['keep must not exceed context_limit'] : []),
  create: () => new KeepAll(),
};

// Strategies of this test beside the built-in ones, passed to the parser explicitly.
const REGISTRY = STRATEGIES.with([definition1, definition2]);


class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const SNIPPETS = [
  '\t', '\u0000', '\u0007', '\ufeff', '\u202e', '\r\n', 'é', '𝔘𝔫𝔦', '🙂', ':', ': ', '- ', '[', ']', '{', '}', ',', '&a ', '*a', '*nope',
  '!', '!!str ', '!!map ', '%YAML 1.2\n', '---\n', '...\n', '|', '>', "'", '"', '#', '? ', '<<: ', '\\', '\n  ', '@', '`',
];
const TOKENS = ['-1', '0', '1e400', '-1e400', '99999999999999999999', '~', '[]', '{}', 'true', "''", '0x10', '.nan', '.inf', '1.5', 'null', '[[[]]]', '*x'];
const WEIRD_VALUES: unknown[] = [
  null, 0, -5, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, '', 'text', 'sk-proj-abcdefghijklmnopqrstuvwxyz', true, false, [], {}, [1, [2, [3]]],
  { a: { b: 1 } }, ['x', 'y'], 'x'.repeat(20_000), '\u0000\t\u202e',
];

function randomChar(rng: Rng): string {
  return rng.chance(0.5) ? String.fromCharCode(rng.int(256)) : String.fromCodePoint(rng.int(0x2ffff));
}

function mutateText(text: string, rng: Rng): string {
  const lines = text.split('\n');
  const line = rng.int(lines.length);
  switch (rng.int(9)) {
    case 0:
      return text.slice(0, rng.int(text.length + 1));
    case 1: {
      const at = rng.int(text.length + 1);
      const insert = rng.chance(0.6) ? rng.pick(SNIPPETS) : Array.from({ length: 1 + rng.int(8) }, () => randomChar(rng)).join('');
      return text.slice(0, at) + insert + text.slice(at);
    }
    case 2:
      lines.splice(line, 1);
      return lines.join('\n');
    case 3:
      lines.splice(line, 0, lines[line]);
      return lines.join('\n');
    case 4:
      lines[line] = rng.chance(0.5) ? ' '.repeat(1 + rng.int(3)) + lines[line] : lines[line].replace(/^ {1,3}/, '');
      return lines.join('\n');
    case 5: {
      const other = rng.int(lines.length);
      [lines[line], lines[other]] = [lines[other], lines[line]];
      return lines.join('\n');
    }
    case 6:
      lines[line] = lines[line].replace(/(:\s*)([^\s,}\]]+)/, (_m, sep: string) => `${sep}${rng.pick(TOKENS)}`);
      return lines.join('\n');
    case 7:
      lines[line] = `\t${lines[line]}`;
      return lines.join('\n');
    default:
      return `${aliasBomb(rng)}${text}`;
  }
}

/** Anchors that expand exponentially (a "billion laughs" file), put where free-form data is allowed. */
function aliasBomb(rng: Rng): string {
  const levels = 3 + rng.int(6);
  const rows = ['meta:', '  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
  for (let i = 1; i < levels; i++) rows.push(`  l${i}: &l${i} [${Array(9).fill(`*l${i - 1}`).join(', ')}]`);
  return `${rows.join('\n')}\n`;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every container in the data with the path to it, for picking a random spot. */
function containers(value: Json, out: (Json[] | { [key: string]: Json })[] = [], depth = 0): (Json[] | { [key: string]: Json })[] {
  if (depth > 12 || value === null || typeof value !== 'object') return out;
  out.push(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) containers(child, out, depth + 1);
  return out;
}

function typo(key: string, rng: Rng): string {
  if (key.length < 2) return `${key}x`;
  const i = rng.int(key.length - 1);
  return rng.chance(0.5) ? key.slice(0, i) + key.slice(i + 1) : key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
}

function nest(value: Json, depth: number, rng: Rng): Json {
  let out = value;
  for (let i = 0; i < depth; i++) out = rng.chance(0.5) ? [out] : { k: out };
  return out;
}

function mutateData(data: Json, rng: Rng): Json {
  const spots = containers(data);
  if (spots.length === 0) return rng.pick(WEIRD_VALUES) as Json;
  const spot = rng.pick(spots);
  const keys = Array.isArray(spot) ? spot.map((_, i) => String(i)) : Object.keys(spot);
  if (keys.length === 0) return data;
  const key = rng.pick(keys);
  const rec = spot as Record<string, Json>;
  switch (rng.int(8)) {
    case 0:
      if (Array.isArray(spot)) spot.splice(Number(key), 1);
      else delete rec[key];
      break;
    case 1:
      if (!Array.isArray(spot)) rec[typo(key, rng)] = rec[key];
      break;
    case 2:
      if (Array.isArray(spot)) spot.push(structuredClone(spot[Number(key)]));
      else rec[`${key}_extra`] = structuredClone(rec[key]);
      break;
    case 3:
      rec[key] = structuredClone(rng.pick(WEIRD_VALUES)) as Json;
      break;
    case 4:
      rec[key] = nest(rec[key], 20 + rng.int(130), rng);
      break;
    case 5:
      rec[key] = typeof rec[key] === 'number' ? -(rec[key] as number) - rng.int(5) : -1 - rng.int(1000);
      break;
    case 6:
      rec[key] = Array.isArray(rec[key]) ? [] : typeof rec[key] === 'string' ? '' : {};
      break;
    default:
      rec[key] = typeof rec[key] === 'number' ? (rec[key] as number) * 1e300 : String(rec[key]).repeat(1 + rng.int(3));
  }
  return data;
}

/** Restructures a copy of the parsed seed (cheap) and then damages the text, each with some chance. */
function mutate(text: string, data: Json, rng: Rng): string {
  let out = text;
  if (rng.chance(0.5)) {
    let copy = structuredClone(data);
    const steps = 1 + rng.int(3);
    for (let i = 0; i < steps; i++) copy = mutateData(copy, rng);
    out = stringify(copy, { aliasDuplicateObjects: false });
  }
  if (out === text || rng.chance(0.4)) {
    const steps = 1 + rng.int(2);
    for (let i = 0; i < steps; i++) out = mutateText(out, rng);
  }
  return out;
}

interface Outcome {
  loaded: number;
  rejected: number;
  failures: string[];
}

/** Runs one case; a failure is any exception other than a well-formed InputError, or a broken invariant. */
function check<T>(outcome: Outcome, label: string, file: string, text: string, load: () => T, invariant: (value: T) => string | undefined): void {
  try {
    const problem = invariant(load());
    if (problem) outcome.failures.push(`${label}: loaded but ${problem}\n${text.slice(0, 400)}`);
    else outcome.loaded++;
  } catch (e) {
    if (!isInputError(e)) {
      outcome.failures.push(`${label}: ${(e as Error)?.constructor?.name}: ${(e as Error)?.message}\n${text.slice(0, 400)}`);
      return;
    }
    const bad = e.problems.filter(
      (p) => p.file !== file || !(p.line >= 1) || !(p.col >= 1) || typeof p.message !== 'string' || p.message.trim() === '' || p.message.includes('\n'),
    );
    if (e.problems.length === 0 || bad.length > 0) outcome.failures.push(`${label}: malformed problems ${JSON.stringify(bad.slice(0, 3))}`);
    else outcome.rejected++;
  }
}

function transcriptInvariant(t: Transcript): string | undefined {
  if (t.turns.length === 0) return 'has no turns';
  const factIds = new Set(t.facts.map((f) => f.id));
  if (factIds.size !== t.facts.length) return 'has duplicate fact ids';
  if (new Set(t.probes.map((p) => p.id)).size !== t.probes.length) return 'has duplicate probe ids';
  for (const f of t.facts) if (f.turn < 1 || f.turn > t.turns.length) return `fact ${f.id} is out of range`;
  for (const p of t.probes) {
    if (!Number.isInteger(p.afterTurn) || p.afterTurn < 1 || p.afterTurn > t.turns.length) return `probe ${p.id} is out of range`;
    if (p.facts.some((id) => !factIds.has(id))) return `probe ${p.id} names an unknown fact`;
    if (p.mustInclude.some((entry) => entry.length === 0)) return `probe ${p.id} has an empty must_include entry`;
  }
  for (const turn of t.turns) {
    if (turn.kind === 'items' && turn.items.length === 0) return 'has an empty items turn';
    if (turn.kind === 'items') JSON.stringify(turn.items);
    if (turn.kind === 'message' && typeof turn.user !== 'string') return 'has a turn without user text';
  }
  return undefined;
}

function configInvariant(c: SuiteConfig): string | undefined {
  if (c.strategies.length === 0) return 'has no strategies';
  if (new Set(c.strategies.map((s) => s.id)).size !== c.strategies.length) return 'has duplicate strategy ids';
  if (!(c.repeat >= 1) || !(c.concurrency >= 1)) return 'has repeat or concurrency below 1';
  const { limits } = c;
  if (c.repeat > limits.max_repeat || c.concurrency > limits.max_concurrency || c.judge_samples > limits.max_judge_samples) return 'has a setting past its limit';
  if (c.baseline !== undefined && !c.strategies.some((s) => s.id === c.baseline)) return 'has an unknown baseline';
  const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
  for (const p of Object.values(c.providers)) if (p.api_key_env !== undefined && !envName.test(p.api_key_env)) return 'stores a key, not a variable name';
  return undefined;
}

const TRANSCRIPT_SEEDS = ['datasets/cookbook/trimming-laptop.yaml', 'datasets/cookbook/summarizing-router.yaml', 'test/fixtures/transcript-rich.yaml'];

const CONFIG_FILE = resolve(ROOT, 'test/fixtures/fuzz-config.yaml');
const CONFIG_SEEDS = [
  ['strategies:', '  - { id: w, use: fuzz-window, max_turns: 3 }'].join('\n'),
  [
    'datasets: [datasets/**/*.yaml, extra/*.yml]',
    'out: runs',
    'model: local:llama3',
    'judge: openai:gpt-4.1-mini',
    'concurrency: 4',
    'repeat: 2',
    'cache: .cache',
    'baseline: w',
    'agent: runner',
    'providers:',
    '  local: { base_url: "http://127.0.0.1:8080/v1", api_key_env: LOCAL_KEY, api: chat, timeout_ms: 1000, max_attempts: 3 }',
    'prices:',
    '  openai:gpt-4.1-mini: { input: 0.4, output: 1.6 }',
    'strategies:',
    '  - id: w',
    '    use: fuzz-window',
    '    max_turns: 3',
    '    ratio: 0.25',
    '    flag: true',
    '    name: window',
    '  - id: s',
    '    use: fuzz-summary',
    '    context_limit: 4',
    '    keep: 2',
    '    summarizer:',
    '      model: local:llama3',
    '      prompt: fuzz-prompt.md',
    '      max_tokens: 300',
    '      tool_trim_limit: 100',
    '      word_limit: 150',
    'gates:',
    '  - { metric: probe.accuracy, strategy: s, min: 0.8 }',
    '  - { metric: probe.accuracy, strategy: "*", max_drop: 0.05, vs: baseline-run, significant: true }',
    '  - { metric: context.peak_tokens, strategy: w, max: 4000 }',
  ].join('\n'),
  ['datasets: sets/*.yaml', 'cache: false', 'strategies:', '  - use: fuzz-window', '    max_turns: 1', '  - { id: s2, use: fuzz-summary, context_limit: 2, keep: 0, summarizer: offline }'].join('\n'),
];

describe('fuzzing the loaders', () => {
  it('loads every seed unmutated', () => {
    for (const seed of TRANSCRIPT_SEEDS) expect(transcriptInvariant(parseTranscript(readFileSync(resolve(ROOT, seed), 'utf8'), seed))).toBeUndefined();
    for (const seed of CONFIG_SEEDS) expect(configInvariant(parseConfig(seed, CONFIG_FILE, REGISTRY))).toBeUndefined();
  });

  it('never fails on a mutated transcript with anything but a positioned InputError (1,800 cases)', () => {
    const outcome: Outcome = { loaded: 0, rejected: 0, failures: [] };
    TRANSCRIPT_SEEDS.forEach((seedFile, s) => {
      const text = readFileSync(resolve(ROOT, seedFile), 'utf8');
      const data = parse(text) as Json;
      for (let i = 0; i < 600; i++) {
        const seed = 1_000 * (s + 1) + i;
        const mutated = mutate(text, data, new Rng(seed));
        check(outcome, `${seedFile} seed ${seed}`, seedFile, mutated, () => parseTranscript(mutated, seedFile), transcriptInvariant);
      }
    });
    expect(outcome.failures.slice(0, 5)).toEqual([]);
    // Both outcomes must occur, or the mutations are too weak (or too strong) to test anything.
    expect(outcome.loaded).toBeGreaterThan(50);
    expect(outcome.rejected).toBeGreaterThan(1_000);
  });

  it('never fails on a mutated config with anything but a positioned InputError (1,200 cases)', () => {
    const outcome: Outcome = { loaded: 0, rejected: 0, failures: [] };
    CONFIG_SEEDS.forEach((text, s) => {
      const data = parse(text) as Json;
      for (let i = 0; i < 400; i++) {
        const seed = 100_000 * (s + 1) + i;
        const mutated = mutate(text, data, new Rng(seed));
        check(outcome, `config ${s} seed ${seed}`, CONFIG_FILE, mutated, () => parseConfig(mutated, CONFIG_FILE, REGISTRY), configInvariant);
      }
    });
    expect(outcome.failures.slice(0, 5)).toEqual([]);
    expect(outcome.loaded).toBeGreaterThan(30);
    expect(outcome.rejected).toBeGreaterThan(500);
  });

  it('counts anything but a positioned InputError as a failure', () => {
    const outcome: Outcome = { loaded: 0, rejected: 0, failures: [] };
    const none = () => undefined;
    check(outcome, 'type error', 'f.yaml', '', () => {
      throw new TypeError('x is undefined');
    }, none);
    check(outcome, 'no position', 'f.yaml', '', () => {
      throw new InputError([{ file: 'f.yaml', line: 0, col: 0, message: 'whole file' }]);
    }, none);
    check(outcome, 'other file', 'f.yaml', '', () => {
      throw new InputError([{ file: 'g.yaml', line: 1, col: 1, message: 'elsewhere' }]);
    }, none);
    check(outcome, 'broken invariant', 'f.yaml', '', () => 1, () => 'is wrong');
    check(outcome, 'fine', 'f.yaml', '', () => {
      throw new InputError([{ file: 'f.yaml', line: 2, col: 3, message: 'bad key' }]);
    }, none);
    expect(outcome.failures).toHaveLength(4);
    expect(outcome.rejected).toBe(1);
  });

  it('survives pathological files', () => {
    const deepFlow = `turns: ${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const deepBlock = `turns:\n${Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(2 * i + 2)}- k${i}:`).join('\n')}`;
    const deepMeta = `turns: [{ user: hi }]\nmeta: ${'{a: '.repeat(300)}1${'}'.repeat(300)}`;
    const selfAlias = 'turns: &t [*t]\n';
    const bomb = `${aliasBomb(new Rng(1)).replace(/^meta:/, 'meta:')}turns: [{ user: hi }]\n`;
    const hugeBomb = `meta:\n  a: &a [${Array(50).fill('x').join(',')}]\n${Array.from({ length: 9 }, (_, i) => `  b${i}: &b${i} [${Array(50).fill(i === 0 ? '*a' : `*b${i - 1}`).join(',')}]`).join('\n')}\nturns: [{ user: hi }]\n`;
    const cases = ['', '\u0000', '\ufeff', '---', '--- |\n  x', '[]', '42', '"x"', '~', deepFlow, deepBlock, deepMeta, selfAlias, bomb, hugeBomb, 'turns:\n  - user: a\n---\nturns: []\n'];
    const outcome: Outcome = { loaded: 0, rejected: 0, failures: [] };
    cases.forEach((text, i) => {
      check(outcome, `pathological ${i}`, 'p.yaml', text, () => parseTranscript(text, 'p.yaml'), transcriptInvariant);
      check(outcome, `pathological config ${i}`, 'p.yaml', text, () => parseConfig(text, 'p.yaml', REGISTRY), configInvariant);
    });
    expect(outcome.failures).toEqual([]);
  });
});

/** Byte runs that are not UTF-8: stray continuations, overlong forms, surrogates, past U+10FFFF, cut-off sequences, Latin-1. */
const BAD_BYTES = [[0x80], [0xbf], [0xc0, 0x80], [0xc1, 0xbf], [0xc3], [0xc3, 0x28], [0xe2, 0x82], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff], [0xe9, 0x20]];
/** Byte runs that are UTF-8, so a mutation can also leave a file valid. */
const GOOD_BYTES = [[0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x99, 0x82], [0xef, 0xbf, 0xbd], [0x0a]];

/** `bytes` with a few runs of good or bad bytes put in at random places. */
function mutateBytes(bytes: Uint8Array, rng: Rng): Buffer {
  let out = Buffer.from(bytes);
  const steps = 1 + rng.int(3);
  for (let i = 0; i < steps; i++) {
    const at = rng.int(out.length + 1);
    const run = rng.chance(0.7) ? rng.pick(BAD_BYTES) : rng.pick(GOOD_BYTES);
    out = Buffer.concat([out.subarray(0, at), Buffer.from(run), out.subarray(at)]);
  }
  return out;
}

describe('fuzzing the bytes of files', () => {
  it('finds the same first bad UTF-8 sequence as the decoder rejects (3,000 random byte strings)', () => {
    const rng = new Rng(7);
    const strict = new TextDecoder('utf-8', { fatal: true });
    const decodes = (bytes: Uint8Array) => {
      try {
        strict.decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 3_000; i++) {
      // Mostly bytes from 0x80 up, where every UTF-8 rule is decided.
      const bytes = Uint8Array.from({ length: 1 + rng.int(12) }, () => (rng.chance(0.8) ? 0x80 + rng.int(128) : rng.int(128)));
      const { start, end } = firstBadSequence(bytes);
      const label = `bytes ${[...bytes].map((b) => b.toString(16)).join(' ')}`;
      expect(start < bytes.length, label).toBe(!decodes(bytes));
      // Everything before the bad sequence is valid; the sequence itself is not, whatever follows.
      expect(decodes(bytes.subarray(0, start)), label).toBe(true);
      if (start < bytes.length) {
        expect(end, label).toBeGreaterThan(start);
        expect(decodes(bytes.subarray(start, end)), label).toBe(false);
      }
    }
  });

  it('never fails on a transcript or config file with damaged bytes with anything but a positioned InputError (600 cases)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'memeval-fuzz-bytes-'));
    // The prompt file a config seed names, so that seed can load too.
    writeFileSync(join(dir, 'fuzz-prompt.md'), readFileSync(resolve(ROOT, 'test/fixtures/fuzz-prompt.md')));
    const outcome: Outcome = { loaded: 0, rejected: 0, failures: [] };
    const seeds = [...TRANSCRIPT_SEEDS.map((f) => ({ kind: 'transcript', bytes: readFileSync(resolve(ROOT, f)) })), ...CONFIG_SEEDS.map((t) => ({ kind: 'config', bytes: Buffer.from(t) }))];
    seeds.forEach((seed, s) => {
      for (let i = 0; i < 100; i++) {
        const rng = new Rng(500_000 + 1_000 * s + i);
        const path = join(dir, `${seed.kind}-${s}-${i}.yaml`);
        const bytes = mutateBytes(seed.bytes, rng);
        writeFileSync(path, bytes);
        const label = `${seed.kind} seed ${s}/${i}`;
        const text = bytes.toString('latin1');
        if (seed.kind === 'transcript') check(outcome, label, path, text, () => loadTranscriptFile(path), transcriptInvariant);
        else check(outcome, label, path, text, () => loadConfig(path, REGISTRY), configInvariant);
      }
    });
    rmSync(dir, { recursive: true, force: true });
    expect(outcome.failures.slice(0, 5)).toEqual([]);
    expect(outcome.loaded).toBeGreaterThan(10);
    expect(outcome.rejected).toBeGreaterThan(300);
  });
});
