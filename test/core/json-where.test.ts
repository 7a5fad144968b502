import { describe, expect, it } from 'vitest';
import { jsonValueOffset } from '../../core/json-where.js';

const text = JSON.stringify({ a: 1, b: { c: [10, { d: 'x"y}' }, 30], e: null }, 's p': true }, null, 1);
const at = (path: PropertyKey[]) => text.slice(jsonValueOffset(text, path)).split('\n')[0];

describe('jsonValueOffset', () => {
  it('finds the value at a path of keys and indexes, past strings holding quotes and brackets', () => {
    expect(at(['a'])).toBe('1,');
    expect(at(['b', 'c', 2])).toBe('30');
    expect(at(['b', 'c', 1, 'd'])).toBe('"x\\"y}"');
    expect(at(['b', 'e'])).toBe('null');
    expect(at(['s p'])).toBe('true');
  });

  it('stops at the deepest value the file has when a part of the path is missing', () => {
    expect(at(['b', 'missing'])).toBe('{');
    expect(jsonValueOffset(text, ['b', 'c', 7])).toBe(text.indexOf('[\n'));
    expect(jsonValueOffset(text, [])).toBe(0);
  });
});
