import { describe, expect, it } from 'vitest';
import { countWords, normalizeText, normalizeUnicode, stem } from '../../core/text.js';
import { seededRandom } from '../../core/random.js';

describe('stem', () => {
  it('gives inflections of one verb one stem', () => {
    expect(stem('scanned')).toBe(stem('scans'));
    expect(stem('planning')).toBe(stem('plan'));
    expect(stem('carried')).toBe(stem('carry'));
    expect(stem('called')).toBe(stem('calls'));
  });
  it('keeps words with a digit and words of up to three letters', () => {
    expect(stem('v1.0.3s')).toBe('v1.0.3s');
    expect(stem('1.0.3')).toBe('1.0.3');
    expect(stem('ads')).toBe('ads');
  });

  // word → stem
  const CASES: [string, string][] = [
    ['code', 'cod'],
    ['codes', 'cod'],
    ['coded', 'cod'],
    ['coding', 'cod'],
    ['moved', 'mov'],
    ['moving', 'mov'],
    ['meetings', 'meet'],
    ['resetting', 'reset'],
    ['called', 'call'],
    ['batteries', 'battery'],
    ['classes', 'class'],
    ['analysis', 'analysi'],
    ['status', 'status'],
  ];

  it('strips a plural, then -ing/-ed, then a final e, so related words collide', () => {
    expect(CASES.map(([word]) => stem(word))).toEqual(CASES.map(([, reader]) => reader));
  });
});

describe('countWords', () => {
  const bulleted = '• Identifiers:\n  - RX-88812, order #4417\n  - none';

  it('runs: every white-space separated run counts, bullets and dashes included', () => {
    expect(countWords(bulleted, 'runs')).toBe(8);
    expect(countWords('  two  words \n', 'runs')).toBe(2);
  });

  it('words: only runs holding a letter or digit count', () => {
    expect(countWords(bulleted, 'words')).toBe(5);
    expect(countWords('— – ... 42', 'words')).toBe(1);
  });

  it('is 0 for empty or blank text', () => {
    for (const rule of ['runs', 'words'] as const) {
      expect(countWords('', rule)).toBe(0);
      expect(countWords(' \n\t ', rule)).toBe(0);
    }
  });
});

describe('normalizeText', () => {
  it('gives ASCII text the same form as the general Unicode path', () => {
    const random = seededRandom(5);
    const atoms = ['a', 'Z', 'Order', 'A-1042', 'v1.0.3', '10:32', '7', ' ', '  ', '\t', '\n', '\r\n', '\v', '\f', '.', '...', ',', '-', '/', "'", '"', '(', ')', '#', '_', '@', '\u0000', '\u007f', '$5', 'e.g.', 'x-', '-y'];
    for (let i = 0; i < 5000; i++) {
      let text = '';
      const length = 1 + Math.floor(random() * 16);
      for (let j = 0; j < length; j++) text += atoms[Math.floor(random() * atoms.length)];
      expect(normalizeText(text), JSON.stringify(text)).toBe(normalizeUnicode(text));
    }
  });

  it('gives long texts, normalised line by line, the form of the whole', () => {
    const random = seededRandom(6);
    const parts = ['Order A-1042', 'café', 'ΟΔΟΣ', 'Σ', 'ς', 'e\u0301', '\u0301', 'ﬁ', '“x”', ' ', '  ', '\t', '\r', '.', '...', '-', ':', '•', '—', 'ok', '10:32', 'İ', '①', '\u00a0', '\u2028', '\n', '\n\n', '\r\n'];
    for (let i = 0; i < 1500; i++) {
      let text = '';
      while (text.length < 300) text += parts[Math.floor(random() * parts.length)];
      expect(normalizeText(text), JSON.stringify(text)).toBe(normalizeUnicode(text));
    }
  });

  it('keeps inner punctuation between letters and digits, drops the rest, folds case and quotes', () => {
    expect(normalizeText('  Firmware v1.0.3; still FAILING!  ')).toBe('firmware v1.0.3 still failing');
    expect(normalizeText('“Host” db-prod-7’s at 10:32 — ok…')).toBe('host db-prod-7\'s at 10:32 ok');
  });
});
