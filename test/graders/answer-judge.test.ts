import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ANSWER_VERDICT_FORMAT, LlmAnswerJudge, createAnswerJudge, offlineVerdict, strictJsonSchema } from '../../graders/answer-judge.js';
import { COVERAGE_VERDICT_FORMAT, SUMMARY_VERDICT_FORMAT } from '../../graders/summary-judge.js';
import { OpenAIModel } from '../../harness/models/openai.js';
import type { Probe, Transcript } from '../../core/types.js';
import { responsesBody, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';

const transcript: Transcript = { id: 't', tags: [], turns: [], facts: [], probes: [], file: 't.yaml' };
const probe: Probe = {
  id: 'fw',
  afterTurn: 3,
  question: 'Which firmware am I on now?',
  answer: 'v1.0.4',
  mustInclude: [['1.0.4']],
  facts: ['firmware-new'],
  kind: 'update',
};

describe('LlmAnswerJudge against a local server', () => {
  let server: FakeServer;
  let judge: LlmAnswerJudge;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    const model = new OpenAIModel({ name: 'judge-model', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 });
    judge = new LlmAnswerJudge(model);
  });

  const grade = () => judge.grade({ transcript, probe, answer: 'You moved from v1.0.3 to v1.0.4, so v1.0.4 now.' });

  it('sends a reference-guided rubric at temperature 0 with the JSON schema', async () => {
    server.setHandler(() => ({ json: responsesBody('{"verdict":"yes","reason":"latest value given as current"}') }));
    const v = await grade();
    expect(v).toEqual({ verdict: 'pass', reason: 'latest value given as current', model: 'openai:judge-model' });
    const body = server.requests[0].body;
    expect(body.temperature).toBe(0);
    expect(body.text).toEqual({ format: { type: 'json_schema', name: 'answer_verdict', schema: ANSWER_VERDICT_FORMAT.schema, strict: true } });
    const input = JSON.stringify(body.input);
    expect(input).toContain('Reference answer: v1.0.4');
    expect(input).toContain('latest value');
    expect(input).toContain('You moved from v1.0.3 to v1.0.4');
    // A hand-written probe's must_include entries are terms every right answer has.
    expect(input).toContain('Key terms (each must be present, alternatives separated by |): 1.0.4');
  });

  it("tells the judge an imported probe's must_include is facts to convey, in any wording", async () => {
    server.setHandler(() => ({ json: responsesBody('{"verdict":"yes","reason":"same weekend"}') }));
    // The importers derive must_include from the gold answer itself, so it is no list of required words.
    const imported: Transcript = { ...transcript, tags: ['locomo'], meta: { source: 'locomo' } };
    const gold: Probe = { ...probe, question: 'When did I go camping?', answer: 'weekend before May 24, 2023', mustInclude: [['weekend before May 24, 2023']], kind: 'temporal' };
    await judge.grade({ transcript: imported, probe: gold, answer: 'You went camping on May 20–21, 2023.' });
    const input = JSON.stringify(server.requests[0].body.input);
    expect(input).toContain('Key facts the answer should convey (equivalent wording counts, alternatives separated by |): weekend before May 24, 2023');
    expect(input).not.toContain('each must be present');
  });

  it('maps "no" to fail and keeps the explanation', async () => {
    server.setHandler(() => ({ json: responsesBody('{"verdict":"no","reason":"old value presented as current"}') }));
    expect(await grade()).toMatchObject({ verdict: 'fail', reason: 'old value presented as current' });
  });

  it('accepts JSON inside a code fence', async () => {
    server.setHandler(() => ({ json: responsesBody('```json\n{"verdict":"yes","reason":"ok"}\n```') }));
    expect((await grade()).verdict).toBe('pass');
  });

  it.each([
    ['invalid JSON', 'yes, it is correct'],
    ['a verdict outside the schema', '{"verdict":"pass","reason":"x"}'],
    ['a missing reason', '{"verdict":"yes"}'],
    ['an extra field', '{"verdict":"yes","reason":"x","score":1}'],
    ['an empty reply', ''],
  ])('turns %s into an error, never a pass', async (_label, text) => {
    server.setHandler(() => ({ json: responsesBody(text) }));
    const v = await grade();
    expect(v.verdict).toBe('error');
    expect(v.reason.length).toBeGreaterThan(0);
  });

  it('turns a refusal into an error', async () => {
    server.setHandler(() => {
      const body = responsesBody('');
      (body.output as { content: unknown[] }[])[0].content = [{ type: 'refusal', refusal: "I can't help with that." }];
      return { json: body };
    });
    const v = await grade();
    expect(v.verdict).toBe('error');
    expect(v.reason).toContain("can't help");
  });

  it('turns an HTTP 500 into an error', async () => {
    server.setHandler(() => ({ json: { error: { message: 'boom' } }, status: 500 }));
    const v = await grade();
    expect(v.verdict).toBe('error');
    expect(v.reason).toMatch(/judge call failed/);
  });

  it('createAnswerJudge builds the LLM judge for a model spec', () => {
    const model = new OpenAIModel({ name: 'm', baseURL: server.baseURL, apiKey: 'k' });
    expect(createAnswerJudge('openai:m', model)).toBeInstanceOf(LlmAnswerJudge);
  });
});

/** Keywords OpenAI's strict structured output accepts in a JSON Schema. */
const STRICT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', 'description', '$defs', '$ref']);

/** Where a JSON Schema breaks the rules of strict structured output: open objects, optional properties, other keywords. */
function strictProblems(node: unknown, at = 'schema'): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => strictProblems(n, `${at}[${i}]`));
  if (typeof node !== 'object' || node === null) return [];
  const schema = node as Record<string, unknown>;
  const problems = Object.keys(schema).filter((k) => !STRICT_KEYWORDS.has(k)).map((k) => `${at}: keyword ${k}`);
  if (schema.type === 'object') {
    const keys = Object.keys((schema.properties ?? {}) as object);
    if (schema.additionalProperties !== false) problems.push(`${at}: additionalProperties is not false`);
    if (JSON.stringify([...((schema.required ?? []) as string[])].sort()) !== JSON.stringify([...keys].sort())) problems.push(`${at}: not every property is required`);
  }
  const children = ['properties', '$defs'].flatMap((k) => Object.entries((schema[k] ?? {}) as Record<string, unknown>).map(([name, child]) => strictProblems(child, `${at}.${k}.${name}`)));
  return [...problems, ...children.flat(), ...strictProblems(schema.items, `${at}.items`), ...strictProblems(schema.anyOf, `${at}.anyOf`)];
}

describe('reply JSON schemas', () => {
  it('are the zod reply schemas as strict structured output takes them', () => {
    for (const format of [ANSWER_VERDICT_FORMAT, SUMMARY_VERDICT_FORMAT, COVERAGE_VERDICT_FORMAT]) expect(strictProblems(format.schema), format.name).toEqual([]);
    expect(ANSWER_VERDICT_FORMAT.schema).toEqual({
      type: 'object',
      properties: { verdict: { type: 'string', enum: ['yes', 'no'] }, reason: { type: 'string' } },
      required: ['verdict', 'reason'],
      additionalProperties: false,
    });
    expect((SUMMARY_VERDICT_FORMAT.schema.properties as Record<string, unknown>).overall).toEqual({ type: 'number', enum: [1, 2, 3, 4, 5] });
  });

  it('closes every object and requires every property, where zod alone would not', () => {
    const reply = z.object({ a: z.string(), b: z.number().optional(), c: z.object({ d: z.string() }) });
    expect(strictProblems(z.toJSONSchema(reply))).not.toEqual([]);
    expect(strictProblems(strictJsonSchema(reply))).toEqual([]);
  });
});

describe('the offline rule on probes graded by F1 alone', () => {
  const byF1: Probe = { id: 'office', afterTurn: 1, question: 'Which office am I moving to?', answer: 'the Lisbon office on Rua Augusta', mustInclude: [], facts: [], kind: 'recall' };
  const verdict = (answer: string) => offlineVerdict({ transcript, probe: byF1, answer }).verdict;

  it('passes a paraphrase that shares the reference words', () => {
    expect(verdict('You are moving to the Lisbon office on Rua Augusta.')).toBe('pass');
  });

  it('fails word overlap that is negated, hedged or a guess after abstaining', () => {
    expect(verdict('It is not the Lisbon office on Rua Augusta.')).toBe('fail');
    expect(verdict('Maybe the Lisbon office on Rua Augusta.')).toBe('fail');
    expect(verdict("I don't know, perhaps the Lisbon office on Rua Augusta.")).toBe('fail');
  });

  it('keeps a negation the reference itself makes', () => {
    const negative: Probe = { ...byF1, id: 'lunch', question: 'Is lunch included?', answer: 'lunch is not included' };
    expect(offlineVerdict({ transcript, probe: negative, answer: 'No, lunch is not included.' }).verdict).toBe('pass');
  });
});
