// LongMemEval probes graded by the official protocol: the exact prompt of
// evaluate_qa.py `get_anscheck_prompt` per type reaches the judge model, its
// reply is read as the script reads it, and a failed call is an error.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Probe, Transcript } from '../../core/types.js';
import { createAnswerJudge, type AnswerJudge } from '../../graders/answer-judge.js';
import { LONGMEMEVAL_PROTOCOL } from '../../core/longmemeval.js';
import { longMemEvalQuestionOf, readLongMemEvalLabel } from '../../graders/longmemeval.js';
import { longMemEvalToTranscript } from '../../harness/datasets/importers/longmemeval.js';
import { OpenAIModel } from '../../harness/models/openai.js';
import { lastUserText, responsesBody, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';

const FIXTURE = join(import.meta.dirname, '../fixtures/importers/longmemeval-mini.json');
const imported = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[]).map((x, i) => longMemEvalToTranscript(x, i));
const byId = (id: string): Transcript => {
  const t = imported.find((x) => x.id === id);
  if (!t) throw new Error(`fixture has no ${id}`);
  return t;
};

/** A copy of an imported transcript whose probe (and question id) says otherwise. */
function variant(t: Transcript, questionType: string, questionId: string, kind: Probe['kind']): Transcript {
  const probe: Probe = { ...t.probes[0], kind, meta: { ...t.probes[0].meta, question_type: questionType } };
  return { ...t, meta: { ...t.meta, question_id: questionId }, probes: [probe] };
}

// The five prompts of evaluate_qa.py, typed out again here with the values in place,
// so a change to a single character of graders/longmemeval.ts fails these tests.
const STEM =
  'I will give you a question, a correct answer, and a response from a model. Please answer yes if the response contains the correct answer. Otherwise, answer no.';
const STEPS =
  ' If the response is equivalent to the correct answer or contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only contains a subset of the information required by the answer, answer no.';
const TAIL = (q: string, a: string, r: string) => `\n\nQuestion: ${q}\n\nCorrect Answer: ${a}\n\nModel Response: ${r}\n\nIs the model response correct? Answer yes or no only.`;

const expected = {
  default: (q: string, a: string, r: string) => `${STEM}${STEPS} ${TAIL(q, a, r)}`,
  temporal: (q: string, a: string, r: string) =>
    `${STEM}${STEPS} In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response is still correct. ${TAIL(q, a, r)}`,
  knowledgeUpdate: (q: string, a: string, r: string) =>
    `${STEM} If the response contains some previous information along with an updated answer, the response should be considered as correct as long as the updated answer is the required answer.${TAIL(q, a, r)}`,
  preference: (q: string, a: string, r: string) =>
    `I will give you a question, a rubric for desired personalized response, and a response from a model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's personal information correctly.\n\nQuestion: ${q}\n\nRubric: ${a}\n\nModel Response: ${r}\n\nIs the model response correct? Answer yes or no only.`,
  abstention: (q: string, a: string, r: string) =>
    `I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the model correctly identifies the question as unanswerable. The model could say that the information is incomplete, or some other information is given but the asked information is not.\n\nQuestion: ${q}\n\nExplanation: ${a}\n\nModel Response: ${r}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only.`,
};

const ssu = byId('lme-a1b2c3');
const ku = byId('lme-ku-0007');
const trAbs = byId('lme-tr-0042_abs');
const ms = byId('lme-ms-0100');
const pref = byId('lme-pref-9');
const temporal = variant(trAbs, 'temporal-reasoning', 'tr-0042', 'temporal');
const ssa = variant(ssu, 'single-session-assistant', 'a1b2c3', 'recall');

describe('LongMemEval probes with an LLM judge, against a local server', () => {
  let server: FakeServer;
  let judge: AnswerJudge;
  beforeAll(async () => {
    server = await startFakeOpenAI();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    server.setHandler(() => ({ json: responsesBody('yes') }));
    const model = new OpenAIModel({ name: 'judge-model', baseURL: server.baseURL, apiKey: 'test-key', maxAttempts: 1, timeoutMs: 10_000 });
    judge = createAnswerJudge('openai:judge-model', model);
  });

  const sentPrompt = async (t: Transcript, answer: string): Promise<string> => {
    await judge.grade({ transcript: t, probe: t.probes[0], answer });
    expect(server.requests).toHaveLength(1);
    return lastUserText(server.requests[0].body);
  };

  it.each([
    ['single-session-user', ssu, 'Which store did I buy my new running shoes from?', 'Target', expected.default],
    ['single-session-assistant', ssa, 'Which store did I buy my new running shoes from?', 'Target', expected.default],
    ['multi-session', ms, 'How much did I spend in total on the two concert tickets?', '$150 in total, $60 for the first and $90 for the second', expected.default],
    ['temporal-reasoning', temporal, 'How many days ago did I attend the jazz concert?', 'You did not mention attending a jazz concert. You mentioned a rock concert, but not a jazz one.', expected.temporal],
    ['knowledge-update', ku, 'How many bikes do I own now?', '3', expected.knowledgeUpdate],
    ['single-session-preference', pref, 'Can you recommend a podcast for my commute?', 'The user would prefer history podcasts, since they mentioned loving history podcasts.', expected.preference],
    ['abstention (_abs id)', trAbs, 'How many days ago did I attend the jazz concert?', 'You did not mention attending a jazz concert. You mentioned a rock concert, but not a jazz one.', expected.abstention],
  ])('%s: sends the verbatim evaluate_qa.py prompt with question, answer and response in place', async (_type, t, question, answer, prompt) => {
    const response = 'A response with {braces} and $& in it.';
    expect(await sentPrompt(t, response)).toBe(prompt(question, answer, response));
  });

  it('sends the prompt as the only message, at temperature 0, with no JSON schema', async () => {
    await sentPrompt(ku, 'You own 3 bikes now.');
    const body = server.requests[0].body;
    expect(body.instructions).toBeUndefined();
    expect(body.input).toHaveLength(1);
    expect(body.temperature).toBe(0);
    expect(body.text).toBeUndefined();
    // The dataset's question, not the reader's `[Current date: …]` form of it.
    expect(ku.probes[0].question).toContain('[Current date:');
    expect(lastUserText(body)).not.toContain('[Current date:');
  });

  it.each([
    ['yes', 'pass'],
    ['Yes.', 'pass'],
    ['  YES  ', 'pass'],
    ['no', 'fail'],
    ['No.', 'fail'],
    ['The response is incorrect.', 'fail'],
  ])('reads the reply %j as the script does: %s', async (reply, verdict) => {
    server.setHandler(() => ({ json: responsesBody(reply) }));
    const v = await judge.grade({ transcript: ku, probe: ku.probes[0], answer: 'You own 3 bikes now.' });
    expect(v.verdict).toBe(verdict);
    expect(v.model).toBe('openai:judge-model');
    expect(v.reason.startsWith(`${LONGMEMEVAL_PROTOCOL} knowledge-update prompt`)).toBe(true);
  });

  it('turns an HTTP 500 into an error, never a pass or fail', async () => {
    server.setHandler(() => ({ json: { error: { message: 'boom' } }, status: 500 }));
    const v = await judge.grade({ transcript: ku, probe: ku.probes[0], answer: 'You own 3 bikes now.' });
    expect(v.verdict).toBe('error');
    expect(v.reason).toContain('judge call failed');
    expect(v.reason.startsWith(LONGMEMEVAL_PROTOCOL)).toBe(true);
  });

  it('turns an empty reply into an error', async () => {
    server.setHandler(() => ({ json: responsesBody('') }));
    expect((await judge.grade({ transcript: ku, probe: ku.probes[0], answer: 'You own 3 bikes now.' })).verdict).toBe('error');
  });

  it('fails an answer that is only scaffolding without asking, under the protocol', async () => {
    const v = await judge.grade({ transcript: ku, probe: ku.probes[0], answer: '[2023-07-30T10:00:00]' });
    expect(v.verdict).toBe('fail');
    expect(v.reason.startsWith(LONGMEMEVAL_PROTOCOL)).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it("keeps memeval's own judge for probes that are not LongMemEval questions", async () => {
    server.setHandler(() => ({ json: responsesBody('{"verdict":"yes","reason":"same fact"}') }));
    const handWritten: Transcript = { ...ssu, tags: ['support'], meta: {} };
    const v = await judge.grade({ transcript: handWritten, probe: handWritten.probes[0], answer: 'Target' });
    expect(v).toMatchObject({ verdict: 'pass', reason: 'same fact' });
    expect(server.requests[0].body.text).toMatchObject({ format: { type: 'json_schema', name: 'answer_verdict' } });
  });
});

describe('which probes are LongMemEval questions', () => {
  it('needs the importer (tag or meta.source) and one of the six question types', () => {
    expect(longMemEvalQuestionOf({ transcript: ku, probe: ku.probes[0] })).toMatchObject({ type: 'knowledge-update', abstention: false, answer: '3' });
    expect(longMemEvalQuestionOf({ transcript: { ...ku, tags: [] }, probe: ku.probes[0] })?.type).toBe('knowledge-update');
    expect(longMemEvalQuestionOf({ transcript: { ...ku, tags: [], meta: {} }, probe: ku.probes[0] })).toBeUndefined();
    const odd = variant(ku, 'made-up-type', 'ku-0007', 'recall');
    expect(longMemEvalQuestionOf({ transcript: odd, probe: odd.probes[0] })).toBeUndefined();
  });

  it("marks abstention by the script's `'_abs' in question_id`, falling back to kind when the id is not recorded", () => {
    expect(longMemEvalQuestionOf({ transcript: trAbs, probe: trAbs.probes[0] })?.abstention).toBe(true);
    expect(longMemEvalQuestionOf({ transcript: temporal, probe: temporal.probes[0] })?.abstention).toBe(false);
    const noId: Transcript = { ...trAbs, meta: { source: 'longmemeval' } };
    expect(longMemEvalQuestionOf({ transcript: noId, probe: noId.probes[0] })?.abstention).toBe(true);
  });

  it('reads a label as evaluate_qa.py does: "yes" anywhere in the lower-cased reply', () => {
    expect(readLongMemEvalLabel('Yes')).toBe(true);
    expect(readLongMemEvalLabel('no, yes')).toBe(true);
    expect(readLongMemEvalLabel('No')).toBe(false);
    expect(readLongMemEvalLabel('')).toBe(false);
  });
});

describe('LongMemEval probes with judge: offline', () => {
  it('keep the documented offline rule', async () => {
    const judge = createAnswerJudge('offline');
    const v = await judge.grade({ transcript: ku, probe: ku.probes[0], answer: 'You own 3 bikes now.' });
    expect(v).toMatchObject({ verdict: 'pass', model: 'offline' });
    expect(v.reason.startsWith('rule:')).toBe(true);
  });
});
