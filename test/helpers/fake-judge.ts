// A local server's replies to memeval's LLM judge requests, as a careful judge
// would give them: enough to run the judges end to end against a fake server.
import { lastUserText } from '../../scripts/lib/fake-openai.js';

/** Answers each coverage question by looking for the fact in the summary (all the coverage call sends). */
export function coverageVerdict(prompt: string): unknown {
  const summary = prompt.split('SUMMARY:')[1]?.split('QUESTIONS:')[0] ?? '';
  const questions = [...prompt.matchAll(/^\[([^\]]+)\] Does the summary state "(.+?)"(?: \(also written.*?\))?(?: as the current value)?\?$/gm)];
  return { coverage: questions.map((m) => ({ id: m[1], answer: summary.includes(m[2]) ? 'yes' : 'no' })) };
}

export const SUMMARY_VERDICT = {
  claims: [{ claim: 'Router on Windows 10', verdict: 'supported' }],
  temporal: { verdict: 'yes', reason: 'latest values' },
  format: { verdict: 'yes', reason: 'all headings' },
  overall: 4,
  reasons: { faithfulness: 'ok', overall: 'good' },
};

/** "yes" when the answer holds the reference answer's text. */
function answerVerdict(prompt: string): unknown {
  const reference = /^Reference answer: (.*)$/m.exec(prompt)?.[1]?.trim().toLowerCase() ?? '';
  const answer = (prompt.split('Answer to grade:')[1] ?? '').toLowerCase();
  const yes = reference !== '' && answer.includes(reference);
  return { verdict: yes ? 'yes' : 'no', reason: yes ? 'matches the reference' : 'does not state the reference' };
}

/** The judge's reply (JSON text) to a judge request body, or undefined for a request that is not a judge's. */
export function judgeReply(body: Record<string, unknown>): string | undefined {
  const text = JSON.stringify(body);
  if (text.includes('answer_verdict')) return JSON.stringify(answerVerdict(lastUserText(body)));
  if (text.includes('coverage_verdict')) return JSON.stringify(coverageVerdict(lastUserText(body)));
  if (text.includes('summary_verdict')) return JSON.stringify(SUMMARY_VERDICT);
  return undefined;
}
