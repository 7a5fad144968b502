// The built-in `offline` model: a deterministic extractive reader, not an LLM.
// It lets a run measure what a strategy kept without a network or a key.
import type { Model, ModelRequest, ModelResult } from '../../core/model.js';
import { isUserMessage, itemText } from '../../core/items.js';
import { normalizeText, stem } from '../../core/text.js';
import { TokenCounter } from '../../core/tokens.js';
import type { AgentInputItem } from '../../core/types.js';

export const ABSTAIN_ANSWER = "I don't know — that was not mentioned in our conversation.";

/** A sentence must score at least this much to be used as an answer. */
export const MIN_SCORE = 1;
/** Bonus per identifier, number, code or proper name in a sentence, not already in the question. */
export const IDENTIFIER_BONUS = 0.5;
export const MAX_IDENTIFIER_BONUS = 1;
/** Penalty for a sentence that is itself a question: it asks for a fact rather than stating it. */
export const QUESTION_PENALTY = 0.75;
/** The newest sentence gets this much, the oldest none; it only separates near-ties. */
export const RECENCY_BONUS = 0.3;
/** Longer sentences (e.g. tool output) are cut to a window around the matched word. */
export const MAX_ANSWER_CHARS = 300;

const STOP_WORDS = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto over under about as is are was were be been being ' +
    'am do does did done doing have has had having i me my mine myself we us our ours you your yours he him his she her hers it its ' +
    'they them their theirs this that these those there here what which who whom whose when where why how all any both each few more ' +
    'most other some such no nor not only own same so than too very can could will would shall should may might must just also again ' +
    'now ever still yet please tell told say said says mention mentioned remember recall know knew think thought again anything ' +
    'something everything one ok okay yes yeah hi hello thanks thank s t d ll m re ve get got let lets'
  ).split(/\s+/),
);

/** Stems of the content words of a text (lower-cased, stop words removed). */
export function contentStems(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of normalizeText(text).split(' ')) {
    if (word.length === 0 || STOP_WORDS.has(word)) continue;
    if (word.length < 2 && !/\d/.test(word)) continue;
    out.add(stem(word));
  }
  return out;
}

/** Stemmed identifiers of a text, so they compare with content stems. */
function identifierStems(text: string): Set<string> {
  return new Set([...identifiers(text)].map((id) => stem(id)));
}

/**
 * Identifiers, numbers, codes and proper names of a text: words with a digit, all-caps
 * words (`SKU`, `AX3000`) and capitalised words that do not start a sentence. Lower-cased.
 */
export function identifiers(text: string): Set<string> {
  const out = new Set<string>();
  const words = text.split(/\s+/);
  words.forEach((raw, i) => {
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word.length === 0) return;
    const startsSentence = i === 0 || /[.!?:]["')\]]*$/.test(words[i - 1]);
    const isCode = /\d/.test(word) || (word.length >= 2 && /^[\p{Lu}\p{N}_-]+$/u.test(word));
    const isName = !startsSentence && /^\p{Lu}\p{Ll}/u.test(word) && !STOP_WORDS.has(word.toLowerCase());
    if (isCode || isName) out.add(normalizeText(word));
  });
  return out;
}

/** Sentences and clauses of a text: split at line breaks, sentence ends and semicolons. */
export function splitSentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)|;\s+/))
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

interface Candidate {
  text: string;
  /** The sentence before it in the same item, for very short answers. */
  previous?: string;
  position: number;
}

export interface ScoredSentence {
  text: string;
  score: number;
  shared: string[];
}

function contextCandidates(system: string | undefined, items: AgentInputItem[]): Candidate[] {
  const texts = [system ?? '', ...items.map(itemText)];
  const out: Candidate[] = [];
  for (const text of texts) {
    const sentences = splitSentences(text);
    sentences.forEach((sentence, i) => out.push({ text: sentence, previous: sentences[i - 1], position: out.length }));
  }
  return out;
}

interface Analysis {
  stems: Set<string>;
  /** Stemmed, so they compare with question stems. */
  ids: Set<string>;
  isQuestion: boolean;
}

// Probes re-read the same sentences many times; analysing each distinct one once
// keeps the reader linear in new text. Cleared when large, to bound memory.
const analyses = new Map<string, Analysis>();
const MAX_ANALYSES = 50_000;

function analyse(sentence: string): Analysis {
  let hit = analyses.get(sentence);
  if (!hit) {
    if (analyses.size >= MAX_ANALYSES) analyses.clear();
    hit = {
      stems: contentStems(sentence),
      ids: identifierStems(sentence),
      isQuestion: sentence.trimEnd().endsWith('?'),
    };
    analyses.set(sentence, hit);
  }
  return hit;
}

function scoreSentence(sentence: string, question: Set<string>, questionIds: Set<string>, recency: number): ScoredSentence {
  const { stems, ids, isQuestion } = analyse(sentence);
  const shared = [...question].filter((s) => stems.has(s));
  if (shared.length === 0) return { text: sentence, score: 0, shared };
  // A shared identifier (an order number asked about by name) is worth two plain words.
  let score = shared.reduce((sum, s) => sum + (questionIds.has(s) ? 2 : 1), 0);
  const newIds = [...ids].filter((id) => !questionIds.has(id)).length;
  score += Math.min(MAX_IDENTIFIER_BONUS, newIds * IDENTIFIER_BONUS);
  if (isQuestion) score -= QUESTION_PENALTY;
  score += recency * RECENCY_BONUS;
  return { text: sentence, score, shared };
}

/** Every context sentence with its score, in context order (exported for tests and debugging). */
export function scoreContext(system: string | undefined, context: AgentInputItem[], question: string): ScoredSentence[] {
  const q = contentStems(question);
  const qIds = identifierStems(question);
  const candidates = contextCandidates(system, context);
  const last = Math.max(1, candidates.length - 1);
  return candidates.map((c) => scoreSentence(c.text, q, qIds, c.position / last));
}

function answerSpan(candidate: Candidate, shared: string[]): string {
  let text = candidate.text;
  // A bare value ("RX-88812.") reads better with the sentence that introduced it.
  if (text.split(/\s+/).length < 4 && candidate.previous) text = `${candidate.previous} ${text}`;
  if (text.length <= MAX_ANSWER_CHARS) return text;
  const lower = text.toLowerCase();
  const hit = Math.max(0, Math.min(...shared.map((s) => lower.indexOf(s)).filter((i) => i >= 0), text.length));
  const start = Math.max(0, hit - MAX_ANSWER_CHARS / 2);
  const window = text.slice(start, start + MAX_ANSWER_CHARS);
  // Cut at word boundaries so no half identifier is returned.
  const trimmed = window.replace(start > 0 ? /^\S*\s/ : /^/, '').replace(/\s\S*$/, '');
  return `${start > 0 ? '…' : ''}${trimmed}…`;
}

/** Splits a request into the question (last user item) and the context before it. */
export function questionAndContext(input: AgentInputItem[]): { question: string; context: AgentInputItem[] } {
  for (let i = input.length - 1; i >= 0; i--) {
    if (isUserMessage(input[i])) return { question: itemText(input[i]), context: input.slice(0, i) };
  }
  return { question: '', context: input };
}

/**
 * The `offline` model: a deterministic extractive reader. It answers only from
 * the context it is given and never sees the expected answer.
 *
 * 1. The question is the text of the last user item; the context is the system
 *    text plus every item before it (`itemText`).
 * 2. The context is split into sentences and clauses (line breaks, `.!?`, `;`).
 * 3. Question and sentences are reduced to content-word stems (lower-case, stop
 *    words removed, light suffix stemming). A sentence's score is the number of
 *    question stems it contains (a shared identifier counts 2), plus
 *    IDENTIFIER_BONUS per identifier, number, code or proper name of its own (at
 *    most MAX_IDENTIFIER_BONUS; such tokens usually carry the answer), minus
 *    QUESTION_PENALTY if it is a question, plus up to RECENCY_BONUS for its
 *    position (newest most), so after a knowledge update the latest statement
 *    wins a tie. A sentence sharing no content word scores 0.
 * 4. The best sentence answers (with the sentence before it when it is under
 *    four words; a window of MAX_ANSWER_CHARS around the match when long).
 *    If the best score is under MIN_SCORE the reply is ABSTAIN_ANSWER.
 *
 * Limits, by design: it cannot paraphrase, combine facts across sentences or
 * notice that a later sentence updates an earlier one unless the later one
 * shares the question's words. Usage is tiktoken counts of the request and
 * the reply; cost is 0. Judge and summary requests get the same treatment
 * (the harness routes those roles to its own offline rules).
 */
export class OfflineModel implements Model {
  readonly id = 'offline';
  readonly params: Record<string, unknown> = { algorithm: 'extractive-v1' };
  private readonly counter: TokenCounter;

  constructor(opts: { counter?: TokenCounter } = {}) {
    this.counter = opts.counter ?? new TokenCounter();
  }

  /** The reply for a request, without usage accounting. */
  answer(request: Pick<ModelRequest, 'system' | 'input'>): string {
    const { question, context } = questionAndContext(request.input);
    const q = contentStems(question);
    if (q.size === 0) return ABSTAIN_ANSWER;
    const qIds = identifierStems(question);
    const candidates = contextCandidates(request.system, context);
    const last = Math.max(1, candidates.length - 1);
    let best: { candidate: Candidate; scored: ScoredSentence } | undefined;
    for (const candidate of candidates) {
      const scored = scoreSentence(candidate.text, q, qIds, candidate.position / last);
      // `>=` lets a later sentence win an exact tie too.
      if (!best || scored.score >= best.scored.score) best = { candidate, scored };
    }
    if (!best || best.scored.score < MIN_SCORE) return ABSTAIN_ANSWER;
    return answerSpan(best.candidate, best.scored.shared);
  }

  async complete(request: ModelRequest): Promise<ModelResult> {
    const started = performance.now();
    const output = this.answer(request);
    const usage = {
      inputTokens: this.counter.request(request.system, request.input),
      outputTokens: this.counter.text(output),
    };
    return { output, usage, cost: 0, cached: false, latencyMs: performance.now() - started };
  }
}
