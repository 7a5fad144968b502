import { describe, expect, it } from 'vitest';
import { BoundedMemo, oncePerObject } from '../../core/memo.js';

describe('BoundedMemo', () => {
  it('keeps entries in use when full, forgets the unused, and stays under twice its bound', () => {
    const memo = new BoundedMemo<string, number>(3);
    let made = 0;
    const get = (k: string) => memo.through(k, () => ++made);
    get('a');
    get('b');
    get('c');
    get('d'); // young was full: a, b, c become old
    get('a'); // a hit in the old generation moves back to the young
    expect(made).toBe(4);
    get('e');
    get('f'); // young (d, a, e) full: old (b, c) is dropped
    expect(memo.size).toBeLessThanOrEqual(6);
    get('a');
    get('d');
    expect(made).toBe(6);
    get('b');
    expect(made).toBe(7);
  });

  it('answers undefined for what it never saw', () => {
    const memo = new BoundedMemo<string, number>(2);
    memo.set('x', 1);
    expect(memo.get('x')).toBe(1);
    expect(memo.get('y')).toBeUndefined();
  });
});

describe('oncePerObject', () => {
  it('computes once per object, by identity', () => {
    let made = 0;
    const listOf = oncePerObject((o: { n: number }) => (made++, [o.n]));
    const a = { n: 1 };
    expect(listOf(a)).toBe(listOf(a));
    expect(listOf({ n: 1 })).toEqual([1]);
    expect(made).toBe(2);
  });
});
