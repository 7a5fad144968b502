import { describe, expect, it } from 'vitest';
import { flatCopy } from '../../core/flat.js';

describe('flatCopy', () => {
  it('gives the same characters, lone surrogates, quotes and controls included', () => {
    const parent = `prefix "quoted" \\ \u0000 \ud800 caf\u00e9 \u{1f600} suffix`.repeat(3);
    for (const text of ['', 'a', parent, parent.slice(7, 60), parent.slice(20)]) expect(flatCopy(text)).toBe(text);
  });
});
