import { describe, expect, it } from 'vitest';
import { countWords, stem } from '../../core/text.js';

describe('stem', () => {
  it('keeps words with a digit and words of up to three letters in both modes', () => {
    for (const mode of ['reader', 'answer'] as const) {
      expect(stem('v1.0.3s', mode)).toBe('v1.0.3s');
      expect(stem('1.0.3', mode)).toBe('1.0.3');
      expect(stem('ads', mode)).toBe('ads');
    }
  });

  // word → [reader stem, answer stem]
  const CASES: [string, string, string][] = [
    ['code', 'cod', 'code'],
    ['codes', 'cod', 'code'],
    ['coded', 'cod', 'cod'],
    ['coding', 'cod', 'cod'],
    ['moved', 'mov', 'mov'],
    ['moving', 'mov', 'mov'],
    ['meetings', 'meet', 'meeting'],
    ['resetting', 'resett', 'reset'],
    ['called', 'call', 'call'],
    ['batteries', 'battery', 'battery'],
    ['classes', 'class', 'classe'],
    ['analysis', 'analysi', 'analysis'],
    ['status', 'status', 'status'],
  ];

  it('reader strips a plural, then -ing/-ed, then a final e, so related words collide', () => {
    expect(CASES.map(([word]) => stem(word, 'reader'))).toEqual(CASES.map(([, reader]) => reader));
  });

  it('answer strips one suffix and undoubles, so stems stay readable words', () => {
    expect(CASES.map(([word]) => stem(word, 'answer'))).toEqual(CASES.map(([, , answer]) => answer));
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
