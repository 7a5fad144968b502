import { describe, expect, it } from 'vitest';
import { ContextLookup, contextOf, contextRef, messageDigest, parseContextLine, StoredRequests, toRanges, type ContextLine } from '../../core/contexts.js';

describe('contexts.jsonl lines', () => {
  it('folds message numbers into ranges', () => {
    expect(toRanges([1, 2, 3, 7, 9, 10])).toEqual([[1, 3], [7, 7], [9, 10]]);
    expect(toRanges([])).toEqual([]);
  });

  it('gives equal contexts equal refs and tells role and text apart', () => {
    const a = [{ role: 'user', text: 'hi' }, { role: 'assistant', text: 'hello' }];
    expect(contextRef(a.map(messageDigest))).toBe(contextRef(a.map((m) => messageDigest({ ...m }))));
    expect(messageDigest({ role: 'user', text: 'hi' })).not.toBe(messageDigest({ role: 'assistant', text: 'hi' }));
    // Order matters: the same messages in another order are another context.
    expect(contextRef([...a].reverse().map(messageDigest))).not.toBe(contextRef(a.map(messageDigest)));
  });

  it('keeps refs the same from run to run, the empty context included', () => {
    // contexts.jsonl files of earlier runs are read back (resume, reports) by these refs.
    expect(contextRef([])).toBe('e3b0c44298fc1c149afb');
    expect(contextRef(['x'])).toBe('73cb3858a687a8494ca3');
    expect(contextRef(['AAAAAAAAAAAAAAAAAAAAAA', 'bbbbbbbbbbbbbbbbbbbbbb'])).toBe('83fd4843f68d68e1fc75');
  });
  it('reads message and context lines, and nothing else', () => {
    expect(parseContextLine('{"m":3,"role":"user","text":"x"}')).toEqual({ m: 3, role: 'user', text: 'x' });
    expect(parseContextLine('{"c":"ab","r":[[0,2],[5,5]]}')).toEqual({ c: 'ab', r: [[0, 2], [5, 5]] });
    expect(parseContextLine('{"c":"ab","r":[[3,1]]}')).toBeUndefined();
    expect(parseContextLine('{"m":1.5,"role":"user","text":"x"}')).toBeUndefined();
    expect(parseContextLine('{"m":3,"role":"us')).toBeUndefined();
  });
});

describe('ContextLookup', () => {
  const lookup = new ContextLookup();
  lookup.add({ m: 0, role: 'system', text: 'be brief' });
  lookup.add({ m: 1, role: 'user', text: 'a' });
  lookup.add({ m: 2, role: 'assistant', text: 'b' });
  lookup.add({ c: 'full', r: [[0, 2]] });
  lookup.add({ c: 'trimmed', r: [[0, 0], [2, 2]] });
  lookup.add({ c: 'broken', r: [[0, 4]] });

  it('gives a context its messages in order', () => {
    expect(lookup.get('trimmed')).toEqual([{ role: 'system', text: 'be brief' }, { role: 'assistant', text: 'b' }]);
    expect(lookup.get('full')?.map((m) => m.text)).toEqual(['be brief', 'a', 'b']);
  });

  it('knows no context whose ref or messages are missing', () => {
    expect(lookup.get('nope')).toBeUndefined();
    expect(lookup.get('broken')).toBeUndefined();
  });

  it('prefers a record’s own copy (older runs) to the store', () => {
    const own = [{ role: 'user', text: 'copy' }];
    expect(contextOf({ context: own, contextRef: 'full' }, lookup)).toBe(own);
    expect(contextOf({ contextRef: 'full' }, lookup)?.length).toBe(3);
    expect(contextOf({ contextRef: 'full' }, undefined)).toBeUndefined();
    expect(contextOf({}, lookup)).toBeUndefined();
  });
});

describe('ContextLookup told which refs to expect', () => {
  const lines = [
    { m: 0, role: 'system', text: 'be brief' },
    { m: 1, role: 'user', text: 'a' },
    { m: 2, role: 'assistant', text: 'b' },
    { m: 3, role: 'user', text: 'c' },
    { c: 'early', r: [[0, 1]] as [number, number][] },
    { c: 'late', r: [[0, 0], [3, 3]] as [number, number][] },
  ];

  it('keeps only the messages of the expected contexts', () => {
    const kept: number[] = [];
    const lookup = new ContextLookup(() => lines);
    lookup.expect(['late']);
    expect(lookup.get('late')?.map((m) => m.text)).toEqual(['be brief', 'c']);
    // The partial read holds messages 0 and 3 only.
    for (const m of [0, 1, 2, 3]) if ((lookup as unknown as { messages: unknown[] }).messages[m]) kept.push(m);
    expect(kept).toEqual([0, 3]);
  });

  it('reads a context whose range names messages the file lacks as unknown, however large the range', () => {
    const lookup = new ContextLookup(() => [...lines, { c: 'damaged', r: [[0, 1e12]] as [number, number][] }]);
    lookup.expect(['late', 'damaged']);
    expect(lookup.get('damaged')).toBeUndefined();
    expect(lookup.get('late')).toHaveLength(2);
  });

  it('still resolves a ref it was not told of, by reading everything', () => {
    let reads = 0;
    const lookup = new ContextLookup(() => {
      reads++;
      return lines;
    });
    lookup.expect(['late']);
    expect(lookup.get('late')).toHaveLength(2);
    expect(lookup.get('early')?.map((m) => m.text)).toEqual(['be brief', 'a']);
    expect(lookup.get('late')).toHaveLength(2);
    expect(lookup.size).toBe(2);
    expect(reads).toBe(3);
  });
});

describe('ContextLookup, what it reads when', () => {
  const lines: ContextLine[] = [
    { m: 0, role: 'user', text: 'a' },
    { m: 1, role: 'user', text: 'b' },
    { c: 'one', r: [[0, 0]] },
    { c: 'two', r: [[1, 1]] },
  ];

  it('built from lines, ignores what it is told to expect: it has nothing to read', () => {
    const lookup = new ContextLookup();
    for (const line of lines) lookup.add(line);
    lookup.expect(['one']);
    expect(lookup.get('two')).toEqual([{ role: 'user', text: 'b' }]);
    expect(lookup.size).toBe(2);
  });

  it('reads its source once when told nothing, and ignores what it is told after its first use', () => {
    let reads = 0;
    const lookup = new ContextLookup(() => (reads++, lines));
    expect(lookup.get('one')).toEqual([{ role: 'user', text: 'a' }]);
    lookup.expect(['one']);
    expect(lookup.get('two')).toHaveLength(1);
    expect(lookup.size).toBe(2);
    expect(reads).toBe(1);
  });
});

describe('StoredRequests', () => {
  const request = { system: 'Summarise.', user: 'USER: my order is A-17\nASSISTANT: noted' };
  // A probe context (transcript roles) and a request (system and line messages) sharing the system message.
  const lines: ContextLine[] = [
    { m: 0, role: 'system', text: 'Summarise.' },
    { m: 1, role: 'user', text: 'my order is A-17' },
    { c: 'probe', r: [[0, 1]] },
    { m: 2, role: 'line', text: 'USER: my order is A-17' },
    { m: 3, role: 'line', text: 'ASSISTANT: noted' },
    { c: 'request', r: [[0, 0], [2, 3]] },
    { c: 'other-request', r: [[0, 0], [2, 2]] },
  ];

  it('gives back the requests it was asked for, from lines read elsewhere', () => {
    const requests = new StoredRequests(new Set(['request', 'probe']));
    for (const line of lines) requests.take(line);
    expect(requests.get('request')).toEqual(request);
    // A probe context is not a request, and a request it was not asked for is not kept.
    expect(requests.get('probe')).toBeUndefined();
    expect(requests.get('other-request')).toBeUndefined();
  });

  it('keeps no message a request cannot hold, and nothing when asked for none', () => {
    const kept = (requests: StoredRequests) => (requests as unknown as { lookup: { messages: unknown[] } }).lookup.messages.flatMap((m, i) => (m ? [i] : []));
    const some = new StoredRequests(new Set(['request']));
    const none = new StoredRequests(new Set());
    for (const line of lines) {
      some.take(line);
      none.take(line);
    }
    expect(kept(some)).toEqual([0, 2, 3]);
    expect(kept(none)).toEqual([]);
  });
});
