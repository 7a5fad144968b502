import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  checkSummary,
  dueFacts,
  identifiersIn,
  parsePromptHeadings,
  renderTurns,
  summaryIdentifiers,
  summarySource,
  unsupportedIdentifiers,
} from '../../graders/summary-checks.js';
import { containsNormalized, countWords, factPresentIn, NormalizedSegments, normalizeText } from '../../core/text.js';
import { itemLabel, itemText, turnItems } from '../../core/items.js';
import { seededRandom, type Random } from '../../core/random.js';
import { SUMMARY_HEADINGS } from '../../strategies/offline-summarizer.js';
import type { Fact, SummaryChecks, MadeSummary, Transcript, Turn } from '../../core/types.js';

// normalizeText still does its work; the spy only records what it was given, so
// the tests below can tell how much text the checks normalised.
vi.mock('../../core/text.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../core/text.js')>();
  return { ...real, normalizeText: vi.fn(real.normalizeText) };
});
const normalizeSpy = vi.mocked(normalizeText);

const cookbookPrompt = readFileSync(new URL('../../strategies/prompts/cookbook-summary.md', import.meta.url), 'utf8');

const transcript: Transcript = {
  id: 'router',
  tags: [],
  file: 'router.yaml',
  probes: [],
  turns: [
    { kind: 'message', user: "My AX3000 router won't connect. I'm on Windows 10.", assistant: 'Which firmware?', toolCalls: [] },
    {
      kind: 'message',
      user: 'Firmware v1.0.3 (checked 2025-03-02T10:32:00Z).',
      toolCalls: [{ name: 'lookup_device', arguments: { serial: 'RX-88812' }, output: '{"model":"AX3000","firmware":"1.0.3"}' }],
      assistant: 'Try a factory reset.',
    },
    { kind: 'message', user: 'Updated to v1.0.4, now error 42.', assistant: 'Noted.', toolCalls: [] },
    { kind: 'message', user: 'This is my third call.', assistant: 'Sorry about that.', toolCalls: [] },
    { kind: 'message', user: 'Ticket #4417 please.', assistant: 'Done.', toolCalls: [] },
  ],
  facts: [
    { id: 'os', text: 'Windows 10', aliases: ['Win10'], turn: 1, critical: true },
    { id: 'serial', text: 'RX-88812', aliases: [], turn: 2, critical: false },
    { id: 'fw-old', text: 'v1.0.3', aliases: ['1.0.3'], turn: 2, critical: false, supersededBy: 'fw-new' },
    { id: 'fw-new', text: 'v1.0.4', aliases: ['1.0.4'], turn: 3, critical: false },
    { id: 'error', text: 'error 42', aliases: [], turn: 3, critical: false },
    { id: 'ticket', text: '#4417', aliases: ['4417'], turn: 5, critical: false },
  ],
};

function summary(text: string, system = cookbookPrompt): MadeSummary {
  return {
    strategy: 's',
    transcript: 'router',
    turn: 5,
    coveredTurns: [1, 4],
    index: 1,
    summarizer: 'hand',
    request: { system, user: '' },
    text,
    usage: { inputTokens: 0, outputTokens: 0 },
    durationMs: 0,
  };
}

const good = `• Product & Environment:
  - AX3000 router, Windows 10, firmware v1.0.4 (was 1.0.3).
• Reported Issue:
  - Router will not connect; error 42 after the update.
• Steps Tried & Results:
  - Factory reset; updated firmware; error 42.
• Identifiers:
  - Serial RX-88812.
• Timeline Milestones:
  - 10:32 firmware reported; later update; 3rd call.
• Tool Performance Insights:
  - lookup_device worked.
• Current Status & Blockers:
  - Unresolved.
• Next Recommended Step:
  - Check error 42 handling.`;

describe('parsePromptHeadings', () => {
  it('finds the eight cookbook headings', () => {
    // The offline summarizer writes the cookbook prompt's headings: the two lists must agree.
    expect(parsePromptHeadings(cookbookPrompt)).toEqual([...SUMMARY_HEADINGS]);
  });
});

describe('checkSummary', () => {
  it('passes a complete, faithful summary', () => {
    const c = checkSummary(transcript, summary(good), { wordLimit: 200 });
    // fw-old is not due: its replacement fw-new is also in turns 1-4; ticket (turn 5) is outside
    expect(dueFacts(transcript.facts, [1, 4]).map((f) => f.id)).toEqual(['os', 'serial', 'fw-new', 'error']);
    expect(c.factsKept).toEqual(['os', 'serial', 'fw-new', 'error']);
    expect(c.factsMissing).toEqual([]);
    expect(c.factCoverage).toBe(1);
    // 10:32 comes from the timestamp, "3rd" from "third", 1.0.3 from v1.0.3
    expect(c.unsupported).toEqual([]);
    expect(c.headingsMissing).toEqual([]);
    expect(c.staleFacts).toEqual([]);
    expect(c.overLimit).toBe(false);
    expect(c.wordLimit).toBe(200);
  });

  it('flags a hallucinated serial and counts it against the source', () => {
    const text = good.replace('RX-88812', 'RX-88813').replace('lookup_device worked.', 'lookup_device worked; ticket #9001 opened.');
    const c = checkSummary(transcript, summary(text), { wordLimit: 200 });
    expect(c.unsupported).toEqual(['RX-88813', '#9001']);
    expect(c.factsMissing).toEqual(['serial']);
    expect(c.factCoverage).toBe(0.75);
  });

  it('flags a missing heading', () => {
    const text = good.replace('• Tool Performance Insights:\n  - lookup_device worked.\n', '');
    expect(checkSummary(transcript, summary(text), { wordLimit: 200 }).headingsMissing).toEqual(['Tool Performance Insights']);
  });

  it('requires no headings when the prompt names none', () => {
    expect(checkSummary(transcript, summary('Windows 10 user.', 'Summarise briefly.'), { wordLimit: 200 }).headingsMissing).toEqual([]);
  });

  it('checks the word limit (bullets are not words)', () => {
    expect(checkSummary(transcript, summary('• one two\n  - three, four.'), { wordLimit: 4 })).toMatchObject({ words: 4, overLimit: false });
    const c = checkSummary(transcript, summary(good), { wordLimit: 20 });
    expect(c.words).toBe(countWords(good, 'words'));
    expect(c.words).toBeGreaterThan(20);
    expect(c.overLimit).toBe(true);
  });

  it('flags a superseded fact stated without its update', () => {
    const text = good.replace('firmware v1.0.4 (was 1.0.3)', 'firmware v1.0.3');
    const c = checkSummary(transcript, summary(text), { wordLimit: 200 });
    expect(c.staleFacts).toEqual(['fw-old']);
    expect(c.factsMissing).toEqual(['fw-new']);
  });
});

describe('identifiers', () => {
  it('picks codes, numbers, versions and e-mails, not plain words', () => {
    expect(identifiersIn('Serial RX-88812, v1.0.3 at 10:32; mail a@b.io; code ERR-ALPHA; fine words.')).toEqual([
      'RX-88812',
      'v1.0.3',
      '10:32',
      'a@b.io',
      'ERR-ALPHA',
    ]);
  });
  it('reports how many were checked', () => {
    expect(unsupportedIdentifiers('v1.0.3 and v2.0', 'firmware 1.0.3')).toEqual({ checked: 2, unsupported: ['v2.0'] });
  });
});

// ---------------------------------------------------------------- indexed source vs plain text

/** Pieces that stress normalisation: codes, versions, times, e-mails, Unicode folds, marks, odd spaces. */
const PIECES = [
  'router', 'Router', 'error', 'user', 'one', 'third', 'v1.0.3', '1.0.3', 'RX-88812', 'rx', '88812', '#4417', '4417',
  '10:32', '2025-03-02T10:32:00Z', 'a@b.io', 'ERR-ALPHA', 'fw1.0.4', 'ab12', '12', '3rd', 'Σ', 'ΟΔΟΣ', 'ﬁle',
  '１２', 'é', 'e\u0301', 'x\u0301', '\u00a0', '...', '-', '--', '"', '{"model":"AX3000"}', '(x)', 'ab-12-cd', 'İ',
  '\u2019s', 'a.b', '7x', 'z9', '9z', '😀', 'ß', '٣', 'x_y', '\t',
];

function randomText(rnd: Random, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const piece = PIECES[Math.floor(rnd() * PIECES.length)];
    const glue = rnd() < 0.25 ? ['', '-', '.', ':', '/'][Math.floor(rnd() * 5)] : rnd() < 0.1 ? '\n' : ' ';
    out.push(piece, glue);
  }
  return out.join('');
}

/** Phrases likely to occur: runs of words of the joined text, their tails after a letter, and near misses. */
function phrasesOf(rnd: Random, joined: string, count: number): string[] {
  const words = joined.split(' ').filter(Boolean);
  const out: string[] = ['', ' ', 'a  b', 'x '];
  for (let i = 0; i < count && words.length > 0; i++) {
    const at = Math.floor(rnd() * words.length);
    const run = words.slice(at, at + 1 + Math.floor(rnd() * 3)).join(' ');
    const r = rnd();
    if (r < 0.5) out.push(run);
    else if (r < 0.75) out.push(run.slice(Math.floor(rnd() * Math.min(run.length, 4))));
    else out.push(`${run}${PIECES[Math.floor(rnd() * PIECES.length)]}`.trim());
  }
  return out;
}

describe('NormalizedSegments', () => {
  it('answers as containsNormalized on the joined range, for random segments, ranges, phrases and tails', () => {
    const rnd = seededRandom(42);
    let hits = 0;
    let checked = 0;
    for (let round = 0; round < 60; round++) {
      const segments = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => normalizeText(randomText(rnd, Math.floor(rnd() * 8))));
      const index = new NormalizedSegments(segments);
      const after = rnd() < 0.3 ? '' : normalizeText(randomText(rnd, Math.floor(rnd() * 6)));
      const phrases = phrasesOf(rnd, [...segments, after].join(' '), 40);
      for (let k = 0; k < 8; k++) {
        const from = Math.floor(rnd() * (segments.length + 1));
        const to = from + Math.floor(rnd() * (segments.length + 1 - from));
        const joined = [...segments.slice(from, to), after].filter((s) => s !== '').join(' ');
        for (const phrase of phrases) {
          const expected = containsNormalized(joined, phrase);
          expect(index.contains(from, to, phrase, after), `${JSON.stringify(phrase)} in ${JSON.stringify(joined)}`).toBe(expected);
          checked += 1;
          if (expected) hits += 1;
        }
      }
    }
    // Both answers must be exercised, or the comparison proves little.
    expect(hits).toBeGreaterThan(checked / 10);
    expect(checked - hits).toBeGreaterThan(checked / 10);
  });

  it('finds a match that runs from one segment into the next, or into the tail', () => {
    const index = new NormalizedSegments(['order rx', '88812 shipped', 'v1']);
    expect(index.contains(0, 2, 'rx 88812')).toBe(true);
    expect(index.contains(1, 2, 'rx 88812')).toBe(false);
    expect(index.contains(2, 3, '1')).toBe(true);
    expect(index.contains(2, 3, 'v1 0 3', '0 3 ok')).toBe(true);
    expect(index.contains(0, 1, 'v1 0 3', '0 3 ok')).toBe(false);
  });

  it('tells apart long number tails that share their first 64 characters', () => {
    const digits = '1234567890'.repeat(7);
    const index = new NormalizedSegments([`ab${digits}x`, `cd${digits}y 5`]);
    for (const phrase of [`${digits}x`, `${digits}y`, `${digits}z`, `${digits}y 5`, `${digits}x 5`, `b${digits}x`]) {
      expect(index.contains(0, 2, phrase), phrase.slice(-4)).toBe(containsNormalized(`ab${digits}x cd${digits}y 5`, phrase));
    }
  });
});

// The checks as they were first written: the source rendered and normalised whole for every summary.
function referenceRender(transcript: Transcript, range: [number, number]): string {
  const lines: string[] = [];
  transcript.turns.forEach((turn, i) => {
    const n = i + 1;
    if (n < range[0] || n > range[1]) return;
    for (const item of turnItems(turn, n)) {
      const text = itemText(item).trim();
      if (text) lines.push(`${itemLabel(item)}: ${text}`);
    }
  });
  return lines.join('\n');
}

function referenceStale(facts: Fact[], range: [number, number], text: string): string[] {
  const byId = new Map(facts.map((f) => [f.id, f]));
  const inRange = (t: number): boolean => t >= range[0] && t <= range[1];
  return facts
    .filter((f) => {
      const next = f.supersededBy ? byId.get(f.supersededBy) : undefined;
      return next && inRange(f.turn) && inRange(next.turn) && factPresentIn(text, f) && !factPresentIn(text, next);
    })
    .map((f) => f.id);
}

function referenceChecks(transcript: Transcript, summary: MadeSummary, wordLimit: number): SummaryChecks {
  const range = summary.coveredTurns;
  const due = dueFacts(transcript.facts, range);
  const kept = due.filter((f) => factPresentIn(summary.text, f)).map((f) => f.id);
  const source = [referenceRender(transcript, range), summary.request.user].filter(Boolean).join('\n');
  const words = countWords(summary.text, 'words');
  const norm = normalizeText(summary.text);
  return {
    factCoverage: due.length === 0 ? 1 : kept.length / due.length,
    factsKept: kept,
    factsMissing: due.filter((f) => !kept.includes(f.id)).map((f) => f.id),
    unsupported: unsupportedIdentifiers(summary.text, source).unsupported,
    words,
    wordLimit,
    overLimit: words > wordLimit,
    headingsMissing: parsePromptHeadings(summary.request.system).filter((h) => !containsNormalized(norm, normalizeText(h))),
    staleFacts: referenceStale(transcript.facts, range, summary.text),
  };
}

function randomTurn(rnd: Random, n: number): Turn {
  if (rnd() < 0.15) {
    return { kind: 'items', items: [{ type: 'message', role: 'user', content: randomText(rnd, 5) }, { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ` ${randomText(rnd, 4)} ` }] }] };
  }
  const toolCalls = rnd() < 0.3 ? [{ name: 'lookup', arguments: { id: randomText(rnd, 2) }, output: randomText(rnd, 6) }] : [];
  return { kind: 'message', user: rnd() < 0.1 ? '' : `${randomText(rnd, 6)} t${n}`, assistant: rnd() < 0.2 ? undefined : randomText(rnd, 5), toolCalls, at: rnd() < 0.2 ? '2025-03-02T10:32:00Z' : undefined };
}

function randomTranscript(rnd: Random, turns: number): Transcript {
  const facts: Fact[] = [
    { id: 'a', text: 'RX-88812', aliases: ['88812'], turn: 1 + Math.floor(rnd() * turns), critical: false, supersededBy: 'b' },
    { id: 'b', text: 'v1.0.3', aliases: [], turn: 1 + Math.floor(rnd() * turns), critical: false },
    { id: 'c', text: 'third', aliases: ['3rd'], turn: 1 + Math.floor(rnd() * turns), critical: true },
  ];
  return { id: 'random', tags: [], file: 'random.yaml', probes: [], facts, turns: Array.from({ length: turns }, (_, i) => randomTurn(rnd, i + 1)) };
}

/** A summary quoting, gluing and mangling pieces of the transcript, as summarizers (and hallucinations) do. */
function randomSummary(rnd: Random, t: Transcript, index: number): MadeSummary {
  const n = t.turns.length;
  const first = rnd() < 0.7 ? 1 : 1 + Math.floor(rnd() * n);
  const last = Math.min(n + 1, first + Math.floor(rnd() * n));
  const source = referenceRender(t, [1, n]).split(/\s+/).filter(Boolean);
  const pick = (): string => source[Math.floor(rnd() * source.length)] ?? 'x1';
  const tokens = Array.from({ length: 20 }, () => {
    const r = rnd();
    if (r < 0.4) return pick();
    if (r < 0.6) return `${pick()}-${pick()}`;
    if (r < 0.8) return `v${pick()}`;
    return randomText(rnd, 1);
  });
  const user = rnd() < 0.3 ? '' : referenceRender(t, [last - 1, last + 1]);
  const system = rnd() < 0.5 ? cookbookPrompt : 'Summarise.';
  return { ...summary(tokens.join(' '), system), index, coveredTurns: [first, last], request: { system, user } };
}

describe('summary checks against the covered turns (indexed once per transcript)', () => {
  beforeEach(() => {
    normalizeSpy.mockClear();
  });

  it('match the plain-text reference field for field on random transcripts and summaries', () => {
    const rnd = seededRandom(7);
    let unsupported = 0;
    let supported = 0;
    for (let round = 0; round < 25; round++) {
      const t = randomTranscript(rnd, 2 + Math.floor(rnd() * 25));
      for (let k = 0; k < 6; k++) {
        const s = randomSummary(rnd, t, k);
        const expected = referenceChecks(t, s, 30);
        expect(checkSummary(t, s, { wordLimit: 30 })).toEqual(expected);
        expect(renderTurns(t, s.coveredTurns)).toBe(referenceRender(t, s.coveredTurns));
        const ids = summaryIdentifiers(t, s);
        expect(ids).toEqual(unsupportedIdentifiers(s.text, summarySource(t, s)));
        unsupported += ids.unsupported.length;
        supported += ids.checked - ids.unsupported.length;
      }
    }
    expect(supported).toBeGreaterThan(50);
    expect(unsupported).toBeGreaterThan(50);
  });

  /** A long transcript whose every turn carries a marker no summary or request repeats. */
  function markedTranscript(turns: number): Transcript {
    return {
      ...transcript,
      turns: Array.from({ length: turns }, (_, i) => ({
        kind: 'message' as const,
        user: `Turn marker${i + 1}: the router RX-${1000 + i} failed with error ${i} after v1.0.${i}.`,
        assistant: 'Noted, try a reset.',
        toolCalls: [],
      })),
    };
  }

  function prefixSummaries(t: Transcript, count: number, every: number): MadeSummary[] {
    return Array.from({ length: count }, (_, k) => ({
      ...summary(`Router RX-${1000 + k} error ${k}, firmware v1.0.${k}, ticket #9${k}.`),
      index: k + 1,
      coveredTurns: [1, every * (k + 1)] as [number, number],
      request: { system: cookbookPrompt, user: `ASSISTANT: summary ${k}` },
    }));
  }

  it('normalise each turn once, not once per summary covering it', () => {
    const t = markedTranscript(200);
    const summaries = prefixSummaries(t, 40, 5);
    for (const s of summaries) checkSummary(t, s, { wordLimit: 200 });
    const normalised = normalizeSpy.mock.calls.reduce((n, [text]) => n + text.length, 0);
    const turnChars = renderTurns(t, [1, 200]).length;
    const ownChars = summaries.reduce((n, s) => n + s.text.length + s.request.user.length, 0);
    const linear = 1.5 * turnChars + 10 * ownChars;
    expect(normalised).toBeLessThan(linear);
    // Normalising each summary's covered turns afresh would pass all of them at least once.
    const perSummary = summaries.reduce((n, s) => n + renderTurns(t, s.coveredTurns).length, 0);
    expect(perSummary).toBeGreaterThan(4 * linear);
  });

  it('reuse the index: a later summary of the same transcript normalises none of its turns again', () => {
    const t = markedTranscript(60);
    const [first, second] = prefixSummaries(t, 2, 30);
    checkSummary(t, first, { wordLimit: 200 });
    normalizeSpy.mockClear();
    const checks = checkSummary(t, second, { wordLimit: 200 });
    const turnTexts = normalizeSpy.mock.calls.filter(([text]) => /marker\d/.test(text));
    expect(turnTexts).toEqual([]);
    expect(checks).toEqual(referenceChecks(t, second, 200));
  });

  it('rebuild the index when the transcript gets a new turns array', () => {
    const t = markedTranscript(10);
    const s = { ...summary('Serial RX-88812.'), coveredTurns: [1, 10] as [number, number] };
    expect(checkSummary(t, s, { wordLimit: 200 }).unsupported).toEqual(['RX-88812']);
    t.turns = [...t.turns, { kind: 'message', user: 'Serial RX-88812.', toolCalls: [] }];
    expect(checkSummary(t, { ...s, coveredTurns: [1, 11] }, { wordLimit: 200 }).unsupported).toEqual([]);
  });
});
