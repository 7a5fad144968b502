import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONTEXTS_FILE, readContexts } from '../../../core/contexts.js';
import { ContextStore } from '../../../harness/run/context-store.js';
import { tempWorkspaces } from '../../helpers/cli.js';

const workspace = tempWorkspaces();
const runDir = () => workspace().dir;

const msg = (role: string, text: string) => ({ role, text });
const history = (n: number) => [msg('system', 'You are helpful.'), ...Array.from({ length: n }, (_, i) => msg(i % 2 ? 'assistant' : 'user', `turn ${i}`))];

function open(dir: string): ContextStore {
  const store = ContextStore.inRunDir(dir);
  store.open();
  return store;
}

describe('ContextStore', () => {
  it('stores each distinct message once however many contexts hold it', () => {
    const dir = runDir();
    const store = open(dir);
    // A growing full history: 20 contexts of 1..20 turns.
    const refs = Array.from({ length: 20 }, (_, i) => store.keep(history(i + 1)));
    store.close();
    const lines = readFileSync(join(dir, CONTEXTS_FILE), 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith('{"m"'))).toHaveLength(21);
    expect(lines.filter((l) => l.startsWith('{"c"'))).toHaveLength(20);
    // Each context is one range: the history grows by appending.
    expect(lines.at(-1)).toMatch(/"r":\[\[0,20\]\]/);
    const lookup = readContexts(dir);
    refs.forEach((ref, i) => expect(lookup.get(ref)).toEqual(history(i + 1)));
  });

  it('writes a context seen before not again, and equal contexts get equal refs', () => {
    const dir = runDir();
    const store = open(dir);
    const a = store.keep(history(3));
    const size = readFileSync(join(dir, CONTEXTS_FILE), 'utf8').length;
    expect(store.keep(history(3))).toBe(a);
    store.close();
    expect(readFileSync(join(dir, CONTEXTS_FILE), 'utf8').length).toBe(size);
    const other = open(runDir());
    expect(other.keep(history(3))).toBe(a);
    other.close();
  });

  it('redacts what it writes, and still tells contexts apart by the text sent', () => {
    const dir = runDir();
    const store = open(dir);
    const key = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6';
    const ref = store.keep([msg('user', `my key is ${key}`)]);
    store.close();
    const text = readFileSync(join(dir, CONTEXTS_FILE), 'utf8');
    expect(text).not.toContain(key);
    expect(readContexts(dir).get(ref)).toEqual([msg('user', 'my key is [REDACTED]')]);
  });

  it('writes a message that held a secret not again after a resume, nor the secret', () => {
    const dir = runDir();
    const key = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6';
    const told = [msg('system', 'You are helpful.'), msg('user', `my key is ${key}`), msg('user', 'password: hunter2-correct-horse')];
    const first = open(dir);
    const a = first.keep(told);
    first.close();
    const second = open(dir);
    expect(second.keep(told)).toBe(a);
    const b = second.keep([...told, msg('assistant', 'noted')]);
    second.close();
    const text = readFileSync(join(dir, CONTEXTS_FILE), 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain('hunter2');
    // The three messages once each, the one the resumed run added, and the two contexts.
    const lines = text.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('{"m"'))).toHaveLength(4);
    expect(lines.at(-1)).toMatch(/"r":\[\[0,3\]\]/);
    expect(readContexts(dir).get(b)?.map((m) => m.text)).toEqual(['You are helpful.', 'my key is [REDACTED]', 'password: [REDACTED]', 'noted']);
  });

  it('shares one line between messages that differ only in the secret they held', () => {
    const dir = runDir();
    const store = open(dir);
    const a = store.keep([msg('user', 'password: hunter2-correct-horse')]);
    const b = store.keep([msg('user', 'password: tr0ub4dor-and-3')]);
    store.close();
    // Still told apart: each is the context that was sent.
    expect(a).not.toBe(b);
    const lines = readFileSync(join(dir, CONTEXTS_FILE), 'utf8').trim().split('\n');
    expect(lines.filter((l) => l.startsWith('{"m"'))).toEqual(['{"m":0,"role":"user","text":"password: [REDACTED]"}']);
    expect(readContexts(dir).get(b)).toEqual([msg('user', 'password: [REDACTED]')]);
  });

  it('goes on after a resumed run’s lines, past a torn last line', () => {
    const dir = runDir();
    const first = open(dir);
    const a = first.keep(history(2));
    first.close();
    // Killed mid-write: half a message line.
    appendFileSync(join(dir, CONTEXTS_FILE), '{"m":3,"role":"user","te');
    const second = open(dir);
    const b = second.keep(history(4));
    expect(second.keep(history(2))).toBe(a);
    second.close();
    const lines = readFileSync(join(dir, CONTEXTS_FILE), 'utf8').trim().split('\n');
    // Only the two new turns were written; the old ones kept their numbers.
    expect(lines.filter((l) => l.startsWith('{"m"') && l.endsWith('}'))).toHaveLength(3 + 2);
    const lookup = readContexts(dir);
    expect(lookup.get(a)).toEqual(history(2));
    expect(lookup.get(b)).toEqual(history(4));
  });

  it('starts a new line after a whole last line whose newline a kill cut off', () => {
    const dir = runDir();
    const first = open(dir);
    const a = first.keep(history(2));
    first.close();
    const path = join(dir, CONTEXTS_FILE);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/\n$/, ''));
    const second = open(dir);
    const b = second.keep(history(3));
    second.close();
    const lookup = readContexts(dir);
    expect(lookup.get(a)).toEqual(history(2));
    expect(lookup.get(b)).toEqual(history(3));
  });

  it('remembers a bounded number of messages and contexts, and what it forgot reads back whole when met again', () => {
    const dir = runDir();
    const store = ContextStore.inRunDir(dir, { messages: 4, contexts: 3 });
    store.open();
    // Forty distinct conversations of three turns, then the first ones again: long forgotten.
    const talk = (n: number) => [msg('system', 'You are helpful.'), msg('user', `question ${n}`), msg('assistant', `answer ${n}`)];
    const first = Array.from({ length: 40 }, (_, n) => store.keep(talk(n)));
    const again = Array.from({ length: 5 }, (_, n) => store.keep(talk(n)));
    store.close();
    // Equal contexts keep equal refs, whatever was forgotten in between.
    expect(again).toEqual(first.slice(0, 5));
    const lines = readFileSync(join(dir, CONTEXTS_FILE), 'utf8').trim().split('\n');
    // The system prompt recurs in every context and is never forgotten: written once.
    expect(lines.filter((l) => l.includes('You are helpful.'))).toHaveLength(1);
    // The forgotten ones were written again: 40 + 5 contexts.
    expect(lines.filter((l) => l.startsWith('{"c"'))).toHaveLength(45);
    const lookup = readContexts(dir);
    first.forEach((ref, n) => expect(lookup.get(ref)).toEqual(talk(n)));
  });

  it('reads no store (a run from before it) as no contexts', () => {
    expect(readContexts(runDir()).size).toBe(0);
  });
});
