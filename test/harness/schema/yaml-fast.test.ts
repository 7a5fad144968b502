// The fast reader (harness/schema/yaml-fast.ts) must give, for every text it
// accepts, exactly the data the full reader gives: values, key order and the
// spelling of numbers and booleans. Checked on the bundled datasets, generated
// suites and seeded mutations of them, and on hand-picked corner cases.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { YamlSource, fastData, writtenText } from '../../../harness/yaml-source.js';
import { transcriptToYaml } from '../../../harness/datasets/yaml-write.js';
import { parseTranscript } from '../../../harness/datasets/transcript.js';
import { generateSuite } from '../../../scripts/generate.js';
import { seededRandom } from '../../../core/random.js';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Equal values, key order, Object.is for numbers, and the same written text at every key. */
function sameData(a: unknown, b: unknown, at = '$'): string | undefined {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) ? undefined : `${at}: ${String(a)} vs ${String(b)}`;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return `${at}: list vs mapping`;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.join('\u0000') !== kb.join('\u0000')) return `${at}: keys ${ka.join(',')} vs ${kb.join(',')}`;
  for (const k of ka) {
    const key = Array.isArray(a) ? Number(k) : k;
    const diff = sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
    if (diff) return diff;
    if (writtenText(a, key) !== writtenText(b, key)) return `${at}.${k}: written ${writtenText(a, key)} vs ${writtenText(b, key)}`;
  }
  return undefined;
}

/** undefined when the fast reader declines or agrees with the full one; else what differs. */
function disagreement(text: string): string | undefined {
  const fast = fastData(text);
  if (fast === undefined) return undefined;
  const src = YamlSource.parse(text, 'f.yaml');
  if (!src.ok || src.root === null) return `fast reader accepted a text the full reader refuses: ${JSON.stringify(src.problems)}`;
  const full = src.data(() => 'x');
  if (src.problems.length > 0) return `fast reader accepted a text with problems: ${JSON.stringify(src.problems)}`;
  return sameData(fast, full);
}

function corpus(): string[] {
  const files = globSync(['datasets/**/*.yaml', 'test/fixtures/**/*.yaml', 'memeval.config.yaml'], { cwd: ROOT, absolute: true });
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  for (const t of generateSuite({ turns: 12, seed: 3, toolEvery: 3, tokensPerTurn: 40, facts: 5, count: 4 })) texts.push(transcriptToYaml(t));
  return texts;
}

const INSERTS = [' ', '  ', ':', ': ', '-', '- ', '#', ' #', "'", '"', '|', '|-', '|+', '>', '[', ']', '{', '}', '&a', '*a', '!', '\\', '\t', '0', '1', '.', 'e', '0x', '~', 'null', 'true', '\n', '\n\n', '? ', ',', '%', '@', '`', '---', '...', '\r', '\u00a0', 'é'];

function mutate(text: string, rand: () => number): string {
  const lines = text.split('\n');
  const pick = (n: number) => Math.floor(rand() * n);
  const steps = 1 + pick(3);
  for (let s = 0; s < steps; s++) {
    const i = pick(lines.length);
    const line = lines[i];
    switch (pick(7)) {
      case 0: {
        const at = pick(line.length + 1);
        lines[i] = line.slice(0, at) + INSERTS[pick(INSERTS.length)] + line.slice(at);
        break;
      }
      case 1: {
        const at = pick(line.length);
        lines[i] = line.slice(0, at) + line.slice(at + 1);
        break;
      }
      case 2:
        lines.splice(i, 0, line);
        break;
      case 3:
        lines.splice(i, 1);
        break;
      case 4:
        lines[i] = ' '.repeat(1 + pick(2)) + line;
        break;
      case 5:
        lines[i] = line.replace(/^ {1,2}/, '');
        break;
      default:
        lines[i] = `${line}${INSERTS[pick(INSERTS.length)]}`;
    }
  }
  return lines.join('\n');
}

describe('fast YAML reader', () => {
  it('reads what yaml-write writes, the bundled datasets and configs as the full reader does', () => {
    let accepted = 0;
    for (const text of corpus()) {
      expect(disagreement(text)).toBeUndefined();
      if (fastData(text) !== undefined) accepted++;
    }
    // It must actually take the common case, or the fast path is dead code.
    expect(accepted).toBeGreaterThan(5);
  });

  it('agrees with the full reader on seeded mutations of them, or declines', () => {
    const rand = seededRandom(20261126);
    const texts = corpus();
    let accepted = 0;
    for (let n = 0; n < 6000; n++) {
      const text = mutate(texts[n % texts.length], rand);
      const diff = disagreement(text);
      if (diff) expect.fail(`${diff}\n--- text ---\n${text}`);
      if (fastData(text) !== undefined) accepted++;
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('takes the bundled suite on the fast path, the file styles it uses included (nested flow collections, `|2` blocks, escapes)', () => {
    const files = globSync(['datasets/suite/*.yaml'], { cwd: ROOT, absolute: true });
    const declined = files.filter((f) => fastData(readFileSync(f, 'utf8')) === undefined);
    expect(declined).toEqual([]);
  });

  it.each([
    'a: 1\nb: -0\nc: +5\nd: 3.10\ne: .5\nf: 1.\ng: true\nh: False\ni: ~\nj: null\nk:\nl: NULL\n',
    'a: 0o17\n',
    'a: 0x1F\n',
    'a: 1e3\n',
    'a: .inf\n',
    'a: 1234567890123456789\n',
    'a: "x" \nb: \'it\'\'s\'\nc: ""\nd: \'\'\n',
    'a: "x\\ty"\n',
    'a: [ ]\n',
    'a: []\nb: {}\n',
    'a: |\n  x\n\n  y\n\n\nb: 1\n',
    'a: |-\n    x\n      y\n    z\n',
    'a: |+\n  x\n\n',
    'a: |2\n   x\n',
    'a: |\n\n  x\n',
    'a: |\n    \n  x\n',
    'a: |\nb: 1\n',
    'a: |2\n    x\n   y\n\nb: 1\n',
    'a: |2-\n   x\n',
    'a: |2\n x\n',
    'a:\n  - |1-\n     x\n  - |3\n       y\n',
    'a: |-2\n   x\n',
    'a:\n- 1\n- 2\nb: x\n',
    'a:\n  - 1\n  -\n  - - x\n    - y\n  - k: v\n    j: w\n',
    '- a\n',
    'a: b\n---\nc: d\n',
    'a: b\n...\n',
    'a: b # c\n',
    '# c\na: b\n',
    'a: b\n  c\n',
    'a: b:c\n',
    'a: -x\nb: ?y\nc: :z\nd: ---\ne: a - b\nf: C#\ng: a,b\nh: x]\n',
    'true: 1\n',
    'a: 1\na: 2\n',
    '__proto__: 1\n',
    '"a": 1\n',
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    'a:\n  b:\n    c:\n      d: 1\n  e: 2\n',
    '',
    '\n\n',
    'a: b\r\n',
  ])('agrees on %j', (text) => {
    expect(disagreement(text)).toBeUndefined();
  });

  it('gives transcripts the same value and places as the full reader', () => {
    for (const t of generateSuite({ turns: 10, seed: 9, toolEvery: 2, tokensPerTurn: 30, facts: 4, count: 2 })) {
      const text = transcriptToYaml(t);
      expect(fastData(text)).not.toBeUndefined();
      const parsed = parseTranscript(text, 'a.yaml');
      const dropped = parseTranscript(`# a comment sends it down the full path\n${text}`, 'a.yaml');
      expect(parsed).toEqual(dropped);
    }
  });
});

describe('fast YAML reader, flow collections', () => {
  it.each([
    'a: [x, 1, true, "q, r", \'it\'\'s\', 2.50, ~]\n',
    'a: [ ]\nb: { }\nc: [x,]\nd: [,x]\ne: [x,,y]\n',
    'a: { k: v, n: 3, q: "x: y", e: ~ }\n',
    'a: { k: v, k: w }\n',
    'a: { k: v } x\n',
    'a: [x] # c\n',
    'a: [x, [y]]\n',
    'a: { k: { j: 1 } }\n',
    'a: {k: v}\n',
    'a: { k:v }\n',
    'a: { "k": v }\n',
    'a: [a:b, c]\n',
    'a: [- x]\n',
    'a: [-x, ?y]\n',
    'a: ["x\\"y"]\n',
    'a: [\'x\' y]\n',
    'a: [x\n  , y]\n',
    '- [a, b]\n',
    'a:\n  - [a, b]\n  - { k: v }\n',
    'a: { k: [x, y], m: { n: 1, o: [] }, p: "q" }\n',
    'a: [x, [y, "z", [1, true]], {}, { k: v }]\n',
    'a: { t: 02:58, u: x:, v: a"b, w: it\'s, x: a\\b, y: "a\\"b" }\n',
    'a: [x:, y]\n',
    'a: [x, { k: v }, ]\n',
    'a: { k: [x }\n',
    'a: "x\\"y\\\\z\\n\\/\\t"\nb: "\\u0041"\nc: "x\\"\n',
  ])('agrees on %j', (text) => {
    expect(disagreement(text)).toBeUndefined();
  });
});
