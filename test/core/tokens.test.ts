import { get_encoding } from 'tiktoken';
import { describe, expect, it } from 'vitest';
import { TokenCounter } from '../../core/tokens.js';

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
