import { describe, expect, it } from 'vitest';
import type { RunResult, StrategyFingerprint } from '../../core/types.js';
import { FLIP_LIST_LIMIT, diffCsv, diffHeadline, diffHtml, diffRuns } from '../../reports/diff.js';
import { diffMarkdown } from '../../reports/markdown.js';
import { bulkRun, sampleRun } from '../helpers/sample-run.js';

const CAND_OUTCOMES = {
  full: ['fail', 'fail', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const,
  summ: ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass'] as const,
};

function candidate() {
  const cand = sampleRun({ runId: 'cand', outcomes: { full: [...CAND_OUTCOMES.full], summ: [...CAND_OUTCOMES.summ] } });
  cand.summaries[0].grades!.judge!.overall = 5;
  return cand;
}

/** The warnings other than those the sample runs' own errored items raise (tested on their own below). */
function besidesErrors(diff: { warnings: string[] }): string[] {
  return diff.warnings.filter((w) => !/^the (base|candidate) run has errored items/.test(w));
}

describe('diffRuns', () => {
  const diff = diffRuns(sampleRun({ runId: 'base' }), candidate());
  const by = Object.fromEntries(diff.strategies.map((s) => [s.strategy, s]));

  it('lists the probes that flipped, repeats aggregated by majority', () => {
    const flips = diff.flips.map((f) => `${f.strategy}/${f.probe} ${f.direction}`).sort();
    // full/q2 passed 1 of 2 repeats (not a majority) and now passes both.
    expect(flips).toEqual(['full/p1 pass→fail', 'full/q2 fail→pass', 'summ/p2 fail→pass', 'summ/q1 fail→pass']);
    const q2 = diff.flips.find((f) => f.probe === 'q2')!;
    expect([q2.baseRate, q2.candRate]).toEqual([0.5, 1]);
  });

  it('is not comparable when a transcript both runs measured was read from another version of its file', () => {
    const listed = (sha: (id: string) => string) => ['t1', 't2'].map((id) => ({ id, file: `${id}.yaml`, tags: [], turns: 2, probes: 5, sha256: sha(id) }));
    const base = sampleRun({ runId: 'base' });
    const cand = sampleRun({ runId: 'cand' });
    base.info.transcripts = listed((id) => `v1-${id}`);
    cand.info.transcripts = listed((id) => (id === 't2' ? 'v2-t2' : `v1-${id}`));
    const diff = diffRuns(base, cand);
    expect(diff.comparable).toBe(false);
    expect(diff.warnings[0]).toBe(
      'not comparable: 1 transcript(s) were read from other versions of their files (sha256 differ: t2): their probes or facts may have changed, so the deltas mix the data change with the strategy change',
    );
    expect(diffRuns(base, cand, { allowProtocolChange: true }).warnings[0]).toMatch(/^protocol changed \(compared anyway, --allow-protocol-change\): 1 transcript\(s\) were read/);
    cand.info.transcripts = base.info.transcripts;
    expect(diffRuns(base, cand).comparable).toBe(true);
  });

  it('warns when either run has errored items, naming the stages', () => {
    const clean = bulkRun({ runId: 'clean', strategies: ['s'], transcripts: 6, probesPer: 2, passes: () => true });
    const errored = bulkRun({ runId: 'errored', strategies: ['s'], transcripts: 6, probesPer: 2, passes: (_s, t) => (t === 0 ? 'error' : true) });
    expect(diffRuns(clean, clean).warnings.filter((w) => w.includes('errored items'))).toEqual([]);
    const warnings = diffRuns(clean, errored).warnings.filter((w) => w.includes('errored items'));
    expect(warnings).toEqual([
      'the candidate run has errored items (2 of 12 answer): rates count them as not passed, and the figures taken over the items that did not error (cost, latency, summary judge means and checks) are over fewer items than the other run\'s, so their changes are not like for like',
    ]);
  });

  it('warns when the runs asked each probe a different number of times, and marks a strategy with no shared probe as not compared', () => {
    const once = bulkRun({ runId: 'once', strategies: ['s'], transcripts: 6, probesPer: 2, passes: () => true });
    const thrice = bulkRun({ runId: 'thrice', strategies: ['s'], transcripts: 6, probesPer: 2, passes: () => true });
    thrice.info.repeat = 3;
    expect(diffRuns(once, thrice).warnings).toContain(
      "the runs asked each probe a different number of times (base 1, candidate 3): outcomes by majority and pass rates rest on different samples, so part of a change may be the repeats'",
    );
    const elsewhere = bulkRun({ runId: 'elsewhere', strategies: ['s'], transcripts: 6, probesPer: 2, passes: () => true });
    for (const p of elsewhere.probes) p.transcript = `x-${p.transcript}`;
    const diff = diffRuns(once, elsewhere);
    expect(diffMarkdown(diff)).toContain('not compared (no shared probe)');
    expect(diffMarkdown(diff)).not.toContain('no significant change');
    expect(diffHtml(diff)).toContain('not compared: no probe graded in both runs');
  });

  it('warns when the runs measured different transcripts, and only then', () => {
    const base = sampleRun({ runId: 'base' });
    const fewer = sampleRun({ runId: 'cand' });
    const dropped = fewer.probes[0].transcript;
    fewer.probes = fewer.probes.filter((p) => p.transcript !== dropped);
    fewer.turns = fewer.turns.filter((t) => t.transcript !== dropped);
    const warning = diffRuns(base, fewer).warnings.find((w) => w.startsWith('the runs measured different transcripts'));
    expect(warning).toMatch(/base 2, candidate 1, 1 in both/);
    expect(diffRuns(base, sampleRun({ runId: 'cand' })).warnings.some((w) => w.includes('different transcripts'))).toBe(false);
  });

  it('tests each strategy with exact McNemar on the shared probes', () => {
    expect(by.full).toMatchObject({ sharedProbes: 5, passToFail: 1, failToPass: 1, mcnemarP: 1, significant: false });
    expect(by.summ).toMatchObject({ sharedProbes: 5, passToFail: 0, failToPass: 2, mcnemarP: 0.5, significant: false });
    expect(by['trim-2']).toMatchObject({ sharedProbes: 5, passToFail: 0, failToPass: 0, mcnemarP: 1, significant: false });
    expect(by.summ.accuracyDiff!.diff).toBeCloseTo((0 + 0.5 + 0 + 1 + 0) / 5, 12);
  });

  it('diffs the answerable rate and the reader gap, a rising gap being worse', () => {
    // summ passes every probe in the candidate: its reader gap falls from 0.3 to 0.
    const gap = by.summ.metrics.find((m) => m.metric === 'probe.reader_gap')!;
    expect([gap.base, gap.cand, gap.worse]).toEqual([0.3, 0, false]);
    // full loses f1 for p1 in the candidate: fewer answerable probes, a worse answerable rate.
    const answerable = by.full.metrics.find((m) => m.metric === 'probe.answerable')!;
    expect([answerable.base, answerable.cand, answerable.worse]).toEqual([1, 0.8, true]);
  });

  it('diffs a run recorded before answerable existed against a new one, with no answerable value on the old side', () => {
    const old = sampleRun({ runId: 'old' });
    for (const p of old.probes) p.answerable = null;
    const full = diffRuns(old, sampleRun({ runId: 'new' })).strategies[0];
    const gap = full.metrics.find((m) => m.metric === 'probe.reader_gap')!;
    expect([gap.base, gap.cand, gap.delta, gap.worse]).toEqual([undefined, 0.1, undefined, false]);
  });

  it('reports metric deltas with direction', () => {
    const acc = by.full.metrics.find((m) => m.metric === 'probe.accuracy')!;
    expect(acc.base).toBeCloseTo(0.9, 12);
    expect(acc.cand).toBeCloseTo(0.8, 12);
    expect(acc.delta).toBeCloseTo(-0.1, 12);
    expect(acc.worse).toBe(true);
    const summAcc = by.summ.metrics.find((m) => m.metric === 'probe.accuracy')!;
    expect(summAcc.worse).toBe(false);
    const tokens = by.full.metrics.find((m) => m.metric === 'context.mean_tokens')!;
    expect(tokens.delta).toBe(0);
    expect(by.full.metrics.find((m) => m.metric === 'tokens.input')!.delta).toBe(0);
  });

  it('lists summaries whose grades moved', () => {
    expect(diff.summaryMoves).toEqual([{ strategy: 'summ', transcript: 't1', index: 1, field: 'judge.overall', base: 4, cand: 5 }]);
  });

  it('calls a broad drop significant but not a one-probe wobble', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 10, probesPer: 4, passes: () => true });
    const broad = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 10, probesPer: 4, passes: (_s, t, p) => !(p < 2 && t < 6) });
    const wobble = bulkRun({ runId: 'w', strategies: ['s'], transcripts: 10, probesPer: 4, passes: (_s, t, p) => !(t === 0 && p === 0) });
    const big = diffRuns(base, broad).strategies[0];
    expect(big.passToFail).toBe(12);
    expect(big.mcnemarP).toBeCloseTo(2 / 4096, 12);
    expect(big.significant).toBe(true);
    expect(big.accuracyDiff!.high).toBeLessThan(0);
    const small = diffRuns(base, wobble).strategies[0];
    expect(small.passToFail).toBe(1);
    expect(small.significant).toBe(false);
  });
});

describe('multiple comparisons in a diff', () => {
  // s fails one probe in each of transcripts 0–5 (McNemar p = 2/64 = 0.03125); t does not move (p = 1).
  const base = bulkRun({ runId: 'b', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: () => true });
  const cand = bulkRun({ runId: 'c', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && p === 0 && t < 6) });

  it('bases the verdict on the Holm-adjusted p over the strategies of the diff', () => {
    const alone = diffRuns({ ...base, probes: base.probes.filter((p) => p.strategy === 's') }, { ...cand, probes: cand.probes.filter((p) => p.strategy === 's') });
    // t is still a shared strategy but has no shared probe, so no test and no place in the family.
    expect(alone.strategies.map((s) => [s.strategy, s.sharedProbes, s.significant])).toEqual([['s', 40, true], ['t', 0, false]]);
    expect(alone.strategies[0].mcnemarPHolm).toBeCloseTo(0.03125, 12);
    const [s, t] = diffRuns(base, cand).strategies;
    expect(s.mcnemarP).toBeCloseTo(0.03125, 12);
    expect(s.mcnemarPHolm).toBeCloseTo(0.0625, 12);
    expect(s.significant).toBe(false);
    expect(t.mcnemarPHolm).toBe(1);
  });

  it('prints raw and adjusted p side by side in diff.md, diff.html and diff.csv', () => {
    const diff = diffRuns(base, cand);
    const md = diffMarkdown(diff);
    expect(md).toContain('| McNemar p | Holm p | verdict |');
    expect(md).toContain('| 0.0313 | 0.0625 | no significant change |');
    expect(md).toContain('Verdicts use the Holm-adjusted p (family: the 2 strategies of this diff with shared probes; significant below 0.05).');
    expect(diffHtml(diff)).toContain('McNemar p = 0.031 (Holm-adjusted 0.063)');
    expect(diffCsv(diff)).toContain('s,probe.mcnemar_p_holm,,0.0625');
  });

  it('gives no clustered interval for one transcript, saying why, and the McNemar verdict stands', () => {
    const one = (runId: string, fail: boolean) => bulkRun({ runId, strategies: ['s'], transcripts: 1, probesPer: 4, passes: () => !fail });
    const diff = diffRuns(one('b', false), one('c', true));
    const s = diff.strategies[0];
    expect(s.accuracyDiff).toMatchObject({ diff: -1, clusters: 1, inconclusive: '1 of at least 6 transcripts needed for a clustered test' });
    expect(s.accuracyDiff!.p).toBeUndefined();
    expect(s.mcnemarP).toBeCloseTo(0.125, 12);
    expect(s.significant).toBe(false);
    expect(diffMarkdown(diff)).toContain('n/a: 1 of at least 6 transcripts needed for a clustered test');
    expect(diffCsv(diff)).toContain('probe.accuracy_diff_ci_inconclusive');
    expect(diffHtml(diff)).toContain('(no clustered CI: 1 of at least 6 transcripts needed for a clustered test)');
  });
});

describe('latency noise', () => {
  const slower = (factor: number, plusMs: number) => {
    const run = sampleRun();
    for (const p of run.probes) if (p.latencyMs !== undefined) p.latencyMs = p.latencyMs * factor + plusMs;
    return run;
  };
  const latencyWorse = (cand: ReturnType<typeof sampleRun>) =>
    diffRuns(sampleRun(), cand).strategies.flatMap((s) => s.metrics).filter((m) => m.metric === 'latency.p50' && m.worse).length;

  it('does not flag a latency change of a millisecond, and does flag a doubling', () => {
    expect(latencyWorse(slower(1, 1))).toBe(0);
    expect(latencyWorse(slower(2, 10))).toBeGreaterThan(0);
  });
});

describe('summary prompt changes', () => {
  it('names the strategies whose summary prompt changed, and only those', () => {
    const base = sampleRun();
    const cand = sampleRun();
    const summarized = [...new Set(cand.summaries.map((s) => s.strategy))];
    expect(summarized.length).toBeGreaterThan(0);
    for (const s of cand.summaries) if (s.strategy === summarized[0]) Object.assign(s, { promptPath: 'prompts/v2.md', promptHash: 'bbbbbbbbbbbb' });
    const diff = diffRuns(base, cand);
    expect(diff.promptChanges.map((c) => c.strategy)).toEqual([summarized[0]]);
    expect(diff.promptChanges[0].cand).toEqual(['prompts/v2.md · bbbbbbbbbbbb']);
    expect(diffRuns(base, sampleRun()).promptChanges).toEqual([]);
  });
});

const PROMPT_V1 = 'Summarise the conversation.\nKeep every order number.\nUse at most 200 words.\n';
const ENDPOINT = 'https://api.openai.com/v1';

/** A sample run as a fingerprinting memeval records it; `summ` summarises with `max_tokens`. */
function fingerprinted(options: { runId: string; maxTokens?: number; prompt?: string; model?: string; judge?: string; endpoint?: string }): RunResult {
  const run = sampleRun({ runId: options.runId, model: options.model });
  run.info.judge = options.judge ?? run.info.judge;
  const endpoint = options.endpoint ?? ENDPOINT;
  const summarizer = { model: 'offline', max_tokens: options.maxTokens ?? 2000, tool_trim_limit: 600, word_limit: 200, prompt: 'prompts/support-summary.md' };
  for (const s of run.info.strategies) {
    if (s.id === 'summ') s.options = { ...s.options, summarizer };
    const fingerprint: StrategyFingerprint = { use: s.use, options: s.options, answerModel: run.info.model, judge: run.info.judge, endpoint, agent: 'direct' };
    if (s.id === 'summ') {
      fingerprint.summarizer = 'offline';
      fingerprint.prompt = { path: 'prompts/support-summary.md', hash: options.prompt ? 'bbbbbbbbbbbb' : 'aaaaaaaaaaaa', text: options.prompt ?? PROMPT_V1 };
    }
    s.fingerprint = fingerprint;
  }
  run.info.provenance = {
    endpoints: { [run.info.model]: endpoint },
    answerModel: run.info.model,
    judge: run.info.judge,
    summarizers: ['offline'],
    agent: 'direct',
    memevalVersion: '0.1.0',
  };
  return run;
}

function without(run: RunResult, strategy: string): RunResult {
  return {
    info: { ...run.info, strategies: run.info.strategies.filter((s) => s.id !== strategy) },
    turns: run.turns.filter((r) => r.strategy !== strategy),
    probes: run.probes.filter((r) => r.strategy !== strategy),
    summaries: run.summaries.filter((r) => r.strategy !== strategy),
  };
}

describe('what changed between the runs', () => {
  it('lists a strategy only the base ran as removed and does not compare it; names a changed option', () => {
    const base = fingerprinted({ runId: 'base' });
    const cand = without(fingerprinted({ runId: 'cand', maxTokens: 800 }), 'trim-2');
    const diff = diffRuns(base, cand);
    expect(diff.removed).toEqual(['trim-2']);
    expect(diff.added).toEqual([]);
    expect(diff.strategies.map((s) => s.strategy)).toEqual(['full', 'summ']);
    expect(diff.flips.filter((f) => f.strategy === 'trim-2')).toEqual([]);
    expect(diff.changes).toEqual([{ strategy: 'summ', changes: [{ field: 'options.summarizer.max_tokens', base: '2000', cand: '800' }] }]);
    expect(besidesErrors(diff)).toEqual([]);

    const md = diffMarkdown(diff);
    expect(md).toContain('- **removed** (only in base, not compared): `trim-2`');
    expect(md).toContain('| summ | options.summarizer.max_tokens | 2000 | 800 |');
    // trim-2 dropped critical facts in the base; with no candidate there is no delta and no verdict to give.
    expect(md).not.toMatch(/\| trim-2 \|/);
    const html = diffHtml(diff);
    expect(html).toContain('Removed (only in base, not compared): <b>trim-2</b>');
    expect(html).not.toContain('<h2>trim-2</h2>');
    const csv = diffCsv(diff);
    expect(csv).toContain('trim-2,strategy.removed,present,,,');
    expect(csv).toContain('summ,changed.options.summarizer.max_tokens,2000,800,,');
    expect(csv).not.toContain('trim-2,probe.accuracy');
  });

  it('lists a strategy only the candidate ran as added', () => {
    const diff = diffRuns(without(fingerprinted({ runId: 'base' }), 'summ'), fingerprinted({ runId: 'cand' }));
    expect(diff.added).toEqual(['summ']);
    expect(diff.removed).toEqual([]);
    expect(diff.strategies.map((s) => s.strategy)).toEqual(['full', 'trim-2']);
    expect(diffMarkdown(diff)).toContain('- **added** (only in candidate, not compared): `summ`');
  });

  it('shows a changed summary prompt as a text diff, not two hashes', () => {
    const v2 = PROMPT_V1.replace('Keep every order number.', 'Keep every order number and date.');
    const diff = diffRuns(fingerprinted({ runId: 'base' }), fingerprinted({ runId: 'cand', prompt: v2 }));
    const prompt = diff.changes.find((c) => c.strategy === 'summ')!.changes.find((f) => f.field === 'prompt')!;
    expect(prompt.patch).toContain('-Keep every order number.\n+Keep every order number and date.');
    expect(prompt.patch).toContain('--- base/prompts/support-summary.md');
    // The record-based hash table is for runs without fingerprints only.
    expect(diff.promptChanges).toEqual([]);
    const md = diffMarkdown(diff);
    expect(md).toContain('#### summ: summary prompt');
    expect(md).toMatch(/```diff\n[^]*-Keep every order number\.\n\+Keep every order number and date\.\n[^]*```/);
    expect(md).not.toContain('Summary prompts that changed');
    expect(diffHtml(diff)).toContain('+Keep every order number and date.');
  });

  it('warns when the runs used different answer models, judges or endpoints', () => {
    const base = fingerprinted({ runId: 'base' });
    const cand = fingerprinted({ runId: 'cand', model: 'openai:gpt-4.1', judge: 'openai:gpt-4.1' });
    const diff = diffRuns(base, cand);
    const warning = 'the runs used different answer models: openai:gpt-4.1-mini → openai:gpt-4.1; deltas mix the strategy change with the model change';
    expect(besidesErrors(diff)).toEqual([warning, 'the runs used different judges: offline → openai:gpt-4.1; deltas mix the strategy change with the judge change']);
    expect(diffMarkdown(diff)).toContain(`> ⚠️ **${warning}**`);
    expect(diffHtml(diff)).toContain(warning);
    expect(diff.changes.find((c) => c.strategy === 'full')!.changes).toEqual([
      { field: 'answerModel', base: 'openai:gpt-4.1-mini', cand: 'openai:gpt-4.1' },
      { field: 'judge', base: 'offline', cand: 'openai:gpt-4.1' },
    ]);

    const moved = diffRuns(base, fingerprinted({ runId: 'local', endpoint: 'http://127.0.0.1:8000/v1' }));
    expect(besidesErrors(moved)).toEqual([
      'the runs called openai:gpt-4.1-mini at different endpoints: https://api.openai.com/v1 → http://127.0.0.1:8000/v1; deltas mix the strategy change with the endpoint change',
    ]);
    expect(moved.changes.find((c) => c.strategy === 'full')!.changes.map((f) => f.field)).toEqual(['endpoint']);
  });

  it('warns when a run did not complete, quoting its failure', () => {
    const cand = fingerprinted({ runId: 'cand' });
    cand.info.status = 'failed';
    cand.info.failure = 'answer: 1 error; first: 401 invalid api key';
    const diff = diffRuns(fingerprinted({ runId: 'base' }), cand);
    expect(besidesErrors(diff)).toEqual(['the candidate run did not complete (status failed): "answer: 1 error; first: 401 invalid api key"; its numbers do not cover every item']);
    expect(diff.cand).toMatchObject({ status: 'failed', failure: 'answer: 1 error; first: 401 invalid api key' });
  });

  it('compares options and says so when a run recorded no fingerprint', () => {
    const base = sampleRun({ runId: 'old' });
    const cand = fingerprinted({ runId: 'new' });
    cand.info.strategies.find((s) => s.id === 'trim-2')!.options = { max_turns: 4 };
    // Older runs recorded the prompt path absolute; the same file is not a change.
    const summarizer = { model: 'offline', max_tokens: 2000, tool_trim_limit: 600, word_limit: 200, prompt: '/home/ci/project/prompts/support-summary.md' };
    const summ = base.info.strategies.find((s) => s.id === 'summ')!;
    summ.options = { ...summ.options, summarizer };
    const diff = diffRuns(base, cand);
    expect(diff.changes.find((c) => c.strategy === 'summ')).toEqual({ strategy: 'summ', changes: [], unrecorded: 'base' });
    const trim = diff.changes.find((c) => c.strategy === 'trim-2')!;
    expect(trim).toEqual({ strategy: 'trim-2', changes: [{ field: 'options.max_turns', base: '2', cand: '4' }], unrecorded: 'base' });
    expect(diff.changes.find((c) => c.strategy === 'full')).toEqual({ strategy: 'full', changes: [], unrecorded: 'base' });
    expect(besidesErrors(diff)).toEqual(['the base run did not record where its models were served from; endpoints cannot be compared']);
    const md = diffMarkdown(diff);
    expect(md).toContain('| trim-2 | options.max_turns | 2 | 4 |');
    expect(md).toContain('Fingerprint not recorded in the base run for full, trim-2, summ: compared use and options only.');
  });
});

type Protocol = NonNullable<RunResult['info']['protocol']>;

/** A manifest as run-info records one, with the fields a test changes. */
function protocol(over: { judge?: string; judgeHash?: string; scorers?: string[]; system?: Record<string, string>; absent?: number[] } = {}): Protocol {
  const judge = { model: over.judge ?? 'openai:gpt-4.1', name: 'llm-answer-judge', prompts: [{ system: 'Grade.', user: '{answer}' }], sha256: over.judgeHash ?? 'a'.repeat(64) };
  const system = over.system ?? { t1: 's'.repeat(64), t2: 's'.repeat(64) };
  return {
    version: 1,
    answer: { model: 'openai:gpt-4.1-mini', agent: 'direct', request: 'as sent', sha256: 'r'.repeat(64), systemPrompts: Object.entries(system).map(([id, sha256]) => ({ sha256, transcripts: [id] })) },
    answerJudge: judge,
    summaryJudge: { ...judge, name: 'llm-summary-judge', sha256: 'b'.repeat(64) },
    scorers: over.scorers ?? ['memeval-rules', 'locomo-official-f1'],
    datasets: [{ source: 'locomo', transcripts: 2, probes: 10, absentCategories: over.absent ?? [] }],
  };
}

function withProtocol(runId: string, p: Protocol | undefined): RunResult {
  const run = fingerprinted({ runId });
  run.info.protocol = p;
  return run;
}

describe('protocol comparison', () => {
  it('finds nothing to say about two runs measured the same way', () => {
    const diff = diffRuns(withProtocol('base', protocol()), withProtocol('cand', protocol()));
    expect(diff.comparable).toBe(true);
    expect(diff.protocol).toEqual({ recorded: 'both', differences: [], dataNotes: [] });
    expect(besidesErrors(diff)).toEqual([]);
  });

  it('says "not comparable" first when the judge model, its prompts or the scorers differ', () => {
    const cand = protocol({ judge: 'openai:gpt-5', judgeHash: 'c'.repeat(64), scorers: ['memeval-rules'] });
    const diff = diffRuns(withProtocol('base', protocol()), withProtocol('cand', cand));
    expect(diff.comparable).toBe(false);
    expect(diff.warnings[0]).toMatch(/^not comparable: /);
    expect(diff.protocol.differences).toEqual([
      'answer judge model openai:gpt-4.1 → openai:gpt-5',
      'answer judge prompts/rule llm-answer-judge aaaaaaaa → llm-answer-judge cccccccc',
      'summary judge model openai:gpt-4.1 → openai:gpt-5',
      'scorers locomo-official-f1, memeval-rules → memeval-rules',
    ]);
    expect(diffMarkdown(diff).split('\n').slice(0, 6).join('\n')).toContain('not comparable: answer judge model');
    expect(diffHtml(diff)).toContain('not comparable: answer judge model');
  });

  it('compares system prompts only for transcripts both runs measured', () => {
    const base = protocol({ system: { t1: 'x'.repeat(64), t2: 'y'.repeat(64) } });
    const onlyNew = protocol({ system: { t1: 'x'.repeat(64), t9: 'z'.repeat(64) } });
    expect(diffRuns(withProtocol('base', base), withProtocol('cand', onlyNew)).comparable).toBe(true);
    const changed = protocol({ system: { t1: 'x'.repeat(64), t2: 'w'.repeat(64) } });
    const diff = diffRuns(withProtocol('base', base), withProtocol('cand', changed));
    expect(diff.protocol.differences).toEqual(["answer prompt (the transcript's system prompt) differs for 1 shared transcript (e.g. t2)"]);
  });

  it('with --allow-protocol-change, warns at the top instead', () => {
    const diff = diffRuns(withProtocol('base', protocol()), withProtocol('cand', protocol({ scorers: ['memeval-rules'] })), { allowProtocolChange: true });
    expect(diff.comparable).toBe(false);
    expect(diff.warnings[0]).toBe('protocol changed (compared anyway, --allow-protocol-change): scorers locomo-official-f1, memeval-rules → memeval-rules');
  });

  it('notes a change in the imported data without blocking, and a run with no manifest', () => {
    const diff = diffRuns(withProtocol('base', protocol()), withProtocol('cand', protocol({ absent: [5] })));
    expect(diff.comparable).toBe(true);
    expect(besidesErrors(diff)).toEqual(['imported locomo data differs: 10 probes → 10 probes; categories 5 absent']);
    const old = diffRuns(withProtocol('base', undefined), withProtocol('cand', protocol()));
    expect(old.protocol.recorded).toBe('candidate');
    expect(old.comparable).toBe(true);
    expect(besidesErrors(old)[0]).toContain('the base run recorded no protocol manifest');
    expect(besidesErrors(diffRuns(withProtocol('base', undefined), withProtocol('cand', undefined)))).toEqual([]);
  });
});

describe('diff.html verdict', () => {
  // Strategy s loses two of four probes on 8 of 10 transcripts in the candidate; t is untouched.
  const allPass = (runId: string) => bulkRun({ runId, strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: () => true });
  const worse = (runId: string) => bulkRun({ runId, strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && p < 2 && t < 8) });
  const verdictOf = (html: string) => html.slice(html.indexOf('<section class="verdict"'), html.indexOf('</section>', html.indexOf('<section class="verdict"')));
  const rowOf = (html: string, strategy: string) => verdictOf(html).split('<tr>').find((r) => r.startsWith(`<td>${strategy}</td>`)) ?? '';

  it('heads a significantly worse candidate with the strategy, points, Holm p and the token change', () => {
    const cand = worse('c');
    // 12% fewer context tokens at every turn of every strategy.
    for (const t of cand.turns) t.contextTokens *= 0.88;
    const diff = diffRuns(allPass('b'), cand);
    const holmP = diff.strategies.find((s) => s.strategy === 's')!.mcnemarPHolm;
    expect(holmP).toBeLessThan(0.05);
    expect(diffHeadline(diff)).toBe(
      `Candidate is significantly less accurate on <strong>s</strong> (−40.0 pts, Holm p = ${holmP.toPrecision(3)}) and no different elsewhere; it uses 12% fewer mean context tokens.`,
    );
    expect(diffHtml(diff)).toContain(`<p class="verdict-headline" id="verdict-headline">${diffHeadline(diff)}</p>`);
    // diff.md (what the terminal prints) leads with the same sentence, as text.
    expect(diffMarkdown(diff)).toContain(
      `**Verdict:** Candidate is significantly less accurate on s (−40.0 pts, Holm p = ${holmP.toPrecision(3)}) and no different elsewhere; it uses 12% fewer mean context tokens.`,
    );
  });

  it('says so when nothing changed significantly, and says "more accurate" the other way round', () => {
    expect(diffHeadline(diffRuns(sampleRun({ runId: 'base' }), sampleRun({ runId: 'cand' })))).toBe(
      'Candidate is not significantly different in accuracy from base on any of the 3 shared strategies; it uses about as many mean context tokens.',
    );
    expect(diffHeadline(diffRuns(worse('b'), allPass('c')))).toMatch(/^Candidate is significantly more accurate on <strong>s<\/strong> \(\+40\.0 pts, Holm p = [0-9.e-]+\) and no different elsewhere; /);
  });

  it('gives no verdict when a run did not complete, saying why', () => {
    const cand = worse('c');
    cand.info.status = 'failed';
    cand.info.failure = 'answer: 401 <invalid> key';
    const headline = diffHeadline(diffRuns(allPass('b'), cand));
    expect(headline).toBe(
      '<strong>The comparison cannot be trusted:</strong> the candidate run did not complete (status failed: &quot;answer: 401 &lt;invalid&gt; key&quot;), so its numbers do not cover every item.',
    );
    expect(headline).not.toMatch(/accurate/);
  });

  it('keeps the "not comparable" warning above the verdict, and the verdict above the existing sections', () => {
    const base = allPass('b');
    const cand = worse('c');
    base.info.protocol = protocol();
    cand.info.protocol = protocol({ judge: 'openai:gpt-5' });
    const diff = diffRuns(base, cand);
    expect(diffHeadline(diff)).toContain('cannot be trusted:</strong> the runs were not measured the same way');
    const html = diffHtml(diff);
    const at = (needle: string) => html.indexOf(needle);
    expect(at('not comparable: answer judge model openai:gpt-4.1 → openai:gpt-5')).toBeGreaterThan(0);
    expect(at('not comparable:')).toBeLessThan(at('id="verdict"'));
    expect(at('id="verdict"')).toBeLessThan(at('id="flips"'));
    expect(at('id="flips"')).toBeLessThan(at('<h2>s</h2>'));
    expect(at('<h2>s</h2>')).toBeLessThan(at('<h2>Flipped probes'));
  });

  it('marks each strategy ▼, ▲ or ≈ with accuracy, delta and tokens base → candidate', () => {
    const down = diffHtml(diffRuns(allPass('b'), worse('c')));
    const s = rowOf(down, 's');
    expect(s).toContain('<td class="n nw">100.0% → 60.0%</td>');
    expect(s).toMatch(/<span class="sig bad" title="exact McNemar on 40 shared probes: p = [^"]+, Holm-adjusted p = [^"]+">▼<\/span>/);
    expect(s).toMatch(/−40\.0 pts <span class="muted">\[−\d+\.\d pts, −\d+\.\d pts\]<\/span>/);
    expect(s).toContain('<td class="n nw">125 → 125');
    expect(rowOf(down, 't')).toContain('<span class="sig muted"');
    expect(rowOf(down, 't')).toContain('>≈</span>');
    expect(rowOf(diffHtml(diffRuns(worse('b'), allPass('c'))), 's')).toContain('">▲</span>');
    // One probe lost is a direction, not a significant change: ≈, and the headline says no difference.
    const wobble = diffRuns(allPass('b'), bulkRun({ runId: 'w', strategies: ['s', 't'], transcripts: 10, probesPer: 4, passes: (s, t, p) => !(s === 's' && t === 0 && p === 0) }));
    expect(rowOf(diffHtml(wobble), 's')).toMatch(/<span class="sig muted" title="[^"]+">≈<\/span>/);
    expect(diffHeadline(wobble)).toMatch(/^Candidate is not significantly different in accuracy from base on any of the 2 shared strategies;/);
  });
});

describe('diff.html flips', () => {
  it('lists each flip under its direction and strategy with the question, both answers, the attribution and both contexts, escaped', () => {
    const text = { t1: '<script>alert("x")</script> order A-1042' };
    const cand = sampleRun({ runId: 'cand', outcomes: { full: [...CAND_OUTCOMES.full], summ: [...CAND_OUTCOMES.summ] }, transcriptText: text });
    const base = sampleRun({ runId: 'base', transcriptText: text });
    // The candidate's context differs from the base's, so each side's must be shown, not one of them twice.
    for (const p of cand.probes) if (p.strategy === 'full' && p.probe === 'p1') p.context = [{ role: 'system', text: 'Cut <b>short</b>' }];
    const html = diffHtml(diffRuns(base, cand));
    const section = html.slice(html.indexOf('<section id="flips">'), html.indexOf('</section>', html.indexOf('<section id="flips">')));
    const passToFail = section.slice(0, section.indexOf('Failed in base, passed in candidate'));
    expect(passToFail).toContain('<h3>Passed in base, failed in candidate (1)</h3><h4>full (1)</h4>');
    expect(passToFail).toContain('<b>t1 / p1</b> — What is the order number?');
    expect(passToFail).toContain('<td>answer</td><td>A-1042</td><td>I am not sure, maybe &quot;B-7&quot;?</td>');
    expect(passToFail).toContain('<summary>context the base sent (2 messages, 400 tokens)</summary><pre>[system]\nYou are a support agent.\n\n[user]\n&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; order A-1042</pre>');
    expect(passToFail).toContain('<summary>context the candidate sent (1 message, 400 tokens)</summary><pre>[system]\nCut &lt;b&gt;short&lt;/b&gt;</pre>');
    expect(section).toContain('<h3>Failed in base, passed in candidate (3)</h3>');
    expect(section).toMatch(/<h4>summ \(2\)<\/h4>/);
    // The base failed summ/q1 with the facts in view: its attribution is shown beside the candidate's pass.
    expect(section).toContain('<td>attribution</td><td>present-but-missed</td><td>–</td>');
    expect(html).not.toContain('<script>alert');
  });

  it('caps each direction, saying how many more there are', () => {
    const base = bulkRun({ runId: 'b', strategies: ['s'], transcripts: 60, probesPer: 4, passes: () => true });
    const cand = bulkRun({ runId: 'c', strategies: ['s'], transcripts: 60, probesPer: 4, passes: () => false });
    const diff = diffRuns(base, cand);
    expect(diff.flips).toHaveLength(240);
    const html = diffHtml(diff);
    expect(FLIP_LIST_LIMIT).toBe(200);
    expect(html.split('<div class="flip">')).toHaveLength(FLIP_LIST_LIMIT + 1);
    expect(html).toContain('<h3>Passed in base, failed in candidate (240)</h3>');
    expect(html).toContain('… and 40 more not shown here; the Flipped probes table below lists every flip.');
    expect(diffHtml(diff, { flipLimit: 5 }).split('<div class="flip">')).toHaveLength(6);
    // The full table below still lists every flip.
    expect(html).toContain('<h2>Flipped probes (240)</h2>');
  });
});
