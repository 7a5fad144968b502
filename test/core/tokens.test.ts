import { readFileSync } from 'node:fs';
import { get_encoding } from 'tiktoken';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD, TokenCounter } from '../../core/tokens.js';
import { assistantMessage, itemLabel, itemText, systemMessage, userMessage } from '../../core/items.js';
import { seededRandom } from '../../core/random.js';
import { REPO_ROOT } from '../helpers/cli.js';

describe('TokenCounter', () => {
  it('counts exactly, and still exactly after its memo of texts forgot the oldest', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const enc = get_encoding('o200k_base');
    const first = 'Order A-1042 ships to 12 Elm St on Tuesday.';
    const expected = enc.encode_ordinary(first).length;
    expect(counter.text(first)).toBe(expected);
    // More distinct texts than the memo keeps: the oldest are forgotten on the way.
    for (let i = 0; i < 50_000; i++) counter.text(`note ${i}`);
    expect(counter.distinctTexts).toBeLessThan(50_000);
    expect(counter.text(first)).toBe(expected);
    expect(counter.text('note 49999')).toBe(enc.encode_ordinary('note 49999').length);
    enc.free();
  });
});

/** `count` texts of 1 to `most` atoms each, picked by `random`. */
function* randomTexts(random: () => number, atoms: readonly string[], count: number, most: number): Generator<string> {
  for (let i = 0; i < count; i++) {
    let text = '';
    const length = 1 + Math.floor(random() * most);
    for (let j = 0; j < length; j++) text += atoms[Math.floor(random() * atoms.length)];
    yield text;
  }
}

describe('TokenCounter counting text piece by piece', () => {
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
    for (const text of randomTexts(random, atoms, 4000, 24)) expect(counter.text(text), JSON.stringify(text)).toBe(exact(text));
  });

  it('gives tiktoken’s count on random text from many scripts, marks, digits, spaces and symbols', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const random = seededRandom(11);
    // Each atom probes a class of the pattern: cased and uncased letters, titlecase and modifier letters, combining
    // marks, non-ASCII digits and numbers, Unicode spaces (U+0085 is White_Space, U+FEFF and U+200B are not),
    // contractions with long s, symbols, emoji sequences, private use and astral letters.
    const atoms = ['a', 'Z', 'Hello', 'hELLO', '7', '12345', "'s", "'S", "'\u017f", "'ll", "'Re", "'d", "'", ' ', '  ', '\t', '\n', '\r\n', '\v', '\r', '.', '...', ',', '-', '/', '?!', '"', '(', '#', '_', '\u0000', '\u007f',
      'é', 'É', 'café', 'naïve', 'ß', 'ẞ', 'ǅ', 'ʰ', 'ª', '\u0301', 'e\u0301', '\u0903', 'ـ', '中文', '日本語', '한국어', 'ไทย', 'ก\u0e31', 'ع', 'שָׁ', 'Ω', 'ω', 'ΣΑ', 'Привет', 'ПРИВЕТ',
      '٣', '²', '½', 'Ⅻ', 'ⅻ', '①', '𝟘', '१२', '•', '—', '–', '…', '“', '”', '’', '«', '€', '©', '™', '→', '✓', '🙂', '👍🏽', '👨‍👩‍👧', '🇫🇷',
      '\u00a0', '\u0085', '\u1680', '\u2003', '\u2028', '\u2029', '\u202f', '\u3000', '\ufeff', '\u200b', '\u200d', '\u00ad', '\ue000', '𐍈', '𝔸', 'K', 'ﬁ', 'İ', 'ı', '\u0345', '\ud800', '\udfff'];
    for (const text of randomTexts(random, atoms, 6000, 20)) expect(counter.text(text), JSON.stringify(text)).toBe(exact(text));
  });

  it('gives tiktoken’s count for long texts counted line by line, for both encodings', () => {
    const cl = get_encoding('cl100k_base');
    const random = seededRandom(13);
    // Line starts and ends that decide whether a piece may end after the newline: slashes, spaces before
    // newlines, tabs, Unicode spaces, punctuation runs, letters, digits.
    const starts = ['', ' ', '  ', '\t', '  - ', '/', ' /', '//x', '\n', ' \n', '\u00a0', '\u3000x', '• ', '1. ', 'A', 'é', '中', '(', '\r\n'];
    const bodies = ['Order A-1042 ships', 'café — “ok”', 'x', '12:30', '...', ':', 'done.', '', 'ROLE: text', '\t', ' ', 'a/b/'];
    const ends = ['', ' ', '.', ':', '/', ' /', '\r', '...', '  '];
    for (const [encoding, enc2] of [['gpt-4.1-mini', enc], ['gpt-4', cl]] as const) {
      const counter = new TokenCounter(encoding);
      for (let i = 0; i < 600; i++) {
        const lines: string[] = [];
        while (lines.join('\n').length < 300) {
          const pick = (a: string[]) => a[Math.floor(random() * a.length)];
          lines.push(pick(starts) + pick(bodies) + pick(ends));
        }
        const text = lines.join('\n');
        expect(counter.text(text), JSON.stringify(text)).toBe(enc2.encode_ordinary(text).length);
      }
    }
    cl.free();
  });

  it('counts labelled lines (`LABEL: body`) joined by newlines as their joined text, for both encodings', () => {
    const cl = get_encoding('cl100k_base');
    const random = seededRandom(19);
    const labels = ['USER', 'ASSISTANT', 'TOOL', 'TOOL_CALL', 'SYSTEM', '', '/x', ' ', 'é'];
    // Words and gaps around the spaces the line is cut at: leading and trailing white space, runs of spaces,
    // tabs and newlines, punctuation that takes a newline, digits, contractions, non-ASCII letters.
    const atoms = ['word', 'Word', 'A-17', '12345', "'s", 'café', '中文', '.', '...', ':', '/', '(', ' ', ' ', ' ', '  ', '\t', '\n', ' \n', '\u00a0', '—', '…', '[2025-01-06]'];
    for (const [encoding, enc2] of [['gpt-4.1-mini', enc], ['gpt-4', cl]] as const) {
      const counter = new TokenCounter(encoding);
      for (let i = 0; i < 1500; i++) {
        const pick = <T,>(a: readonly T[]) => a[Math.floor(random() * a.length)];
        const lines = Array.from({ length: Math.floor(random() * 6) }, () => {
          const label = pick(labels);
          const body = Array.from({ length: Math.floor(random() * 10) }, () => pick(atoms)).join('');
          return { label, body, text: `${label}: ${body}` };
        });
        const joined = lines.map((l) => l.text).join('\n');
        expect(counter.labelledLines(lines), JSON.stringify(joined)).toBe(enc2.encode_ordinary(joined).length);
      }
    }
    cl.free();
  });

  it('counts a message from its text count and role as the item and the request count it', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const items = [userMessage('Order A-1042 ships on Tuesday.'), assistantMessage('Noted — “A-1042”.\nAnything else?'), systemMessage('Be brief.')];
    for (const item of items) {
      const text = itemText(item);
      expect(counter.framed(itemLabel(item), counter.text(text))).toBe(MESSAGE_OVERHEAD + exact(itemLabel(item).toLowerCase()) + exact(text));
      expect(counter.framed(itemLabel(item), counter.text(text))).toBe(counter.item(item));
    }
    const user = 'USER: hello\nASSISTANT: hi';
    expect(counter.request('Summarise.', []) + counter.framed('user', counter.text(user))).toBe(counter.request('Summarise.', [userMessage(user)]));
  });

  it('counts a piece too long for the rank table (a huge run or blob) with tiktoken itself', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    for (const text of [`x ${'='.repeat(5000)} y`, 'q'.repeat(4097), ' '.repeat(6000)]) expect(counter.text(text)).toBe(exact(text));
  });

  it('counts with a cl100k counter whole', () => {
    const cl = get_encoding('cl100k_base');
    const text = "It's 12:30 -- the order A-1042's ETA is 3 days.\n\n  Done — “quoted” café.";
    expect(new TokenCounter('gpt-4').text(text)).toBe(cl.encode_ordinary(text).length);
    cl.free();
  });
});

describe('tools in a request', () => {
  it('adds the tool definitions to the request count, and nothing without tools', () => {
    const counter = new TokenCounter('gpt-4.1-mini');
    const items = [{ role: 'user' as const, content: 'Restart nginx on web-04.' }];
    const tools = [{ name: 'restart_service', description: 'Restart a service on a host.', parameters: { type: 'object', properties: { host: { type: 'string' } } } }];
    const bare = counter.request(undefined, items);
    expect(counter.request(undefined, items, [])).toBe(bare);
    const withTools = counter.request(undefined, items, tools);
    // At least the tokens of the definition's own words.
    expect(withTools - bare).toBeGreaterThan(counter.text('restart_service Restart a service on a host. host string'));
    expect(counter.tools(tools)).toBe(withTools - bare);
  });
});
