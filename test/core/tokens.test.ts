import { readFileSync } from 'node:fs';
import { get_encoding } from 'tiktoken';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../core/tokens.js';
import { seededRandom } from '../../core/random.js';
import { REPO_ROOT } from '../helpers/cli.js';

describe('TokenCounter', () => {
  it('counts exactly, and still exactly after its memo of texts started afresh', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const enc = get_encoding('o200k_base');
    const first = 'Order A-1042 ships to 12 Elm St on Tuesday.';
    const expected = enc.encode_ordinary(first).length;
    expect(counter.text(first)).toBe(expected);
    // More distinct texts than the memo keeps: it is cleared on the way.
    for (let i = 0; i < 25_000; i++) counter.text(`note ${i}`);
    expect(counter.distinctTexts).toBeLessThan(25_000);
    expect(counter.text(first)).toBe(expected);
    expect(counter.text('note 24999')).toBe(enc.encode_ordinary('note 24999').length);
    enc.free();
  });
});

describe('TokenCounter counting ASCII text piece by piece', () => {
  const enc = get_encoding('o200k_base');
  const exact = (text: string) => enc.encode_ordinary(text).length;

  it('gives tiktoken’s count for every line and every whole file of the bundled datasets', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const files = globSync('datasets/**/*.{yaml,md}', { cwd: REPO_ROOT, absolute: true });
    expect(files.length).toBeGreaterThan(10);
    let checked = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const piece of [text, ...text.split('\n'), ...text.split(/(?<=[.!?])\s/)]) {
        expect(counter.text(piece), JSON.stringify(piece.slice(0, 80))).toBe(exact(piece));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('gives tiktoken’s count on random ASCII built from the characters the pattern treats apart', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const random = seededRandom(7);
    // Letters of both cases, digits, contractions, every kind of white space, punctuation runs, slashes, control characters.
    const atoms = ['a', 'Z', 'abc', 'ABC', 'Hello', 'hELLO', '7', '12345', "'s", "'S", "'ll", "'Re", "'ve", "'d", "'m", "'t", "'", ' ', '  ', '\t', '\n', '\r\n', '\n\n', '\v', '\f', '\r', '.', '...', ',', '-', '/', '//', '?!', '"', '(', ')', '{', '}', '@', '#', '$', '_', '\u0000', '\u0007', '\u001f', '\u007f', ' .', ' /\n', '- ', '1.5', 'A-17'];
    for (let i = 0; i < 4000; i++) {
      let text = '';
      const length = 1 + Math.floor(random() * 24);
      for (let j = 0; j < length; j++) text += atoms[Math.floor(random() * atoms.length)];
      expect(counter.text(text), JSON.stringify(text)).toBe(exact(text));
    }
  });

  it('counts text with any non-ASCII character whole, and a cl100k counter whole', () => {
    for (const text of ['café au lait', 'naïve résumé — “quoted”', 'emoji 🙂 here', 'non\u00a0breaking', 'line\u0085next']) {
      expect(new TokenCounter('gpt-4.1-mini').text(text)).toBe(exact(text));
    }
    const cl = get_encoding('cl100k_base');
    const text = "It's 12:30 -- the order A-1042's ETA is 3 days.\n\n  Done.";
    expect(new TokenCounter('gpt-4').text(text)).toBe(cl.encode_ordinary(text).length);
    cl.free();
  });
});
