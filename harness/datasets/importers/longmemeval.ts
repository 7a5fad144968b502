// Converts one LongMemEval instance (xiaowu0162/LongMemEval: longmemeval_s.json,
// longmemeval_m.json, longmemeval_oracle.json) into a transcript.
//
// Mapping
// - The haystack sessions, sorted by their dates (the oracle file is not sorted),
//   become turns: a user message opens a turn, the assistant reply closes it.
//   Each session's first turn opens with a `[Session n]` header line and carries
//   the date as `at:` (shown to the model as a `[date]` prefix); an unreadable
//   date goes into the header instead (`[Session n: raw date]`).
// - The question becomes one probe after the last turn. Its text starts with a
//   `[Current date: …]` line, as LongMemEval's own reader prompt gives the
//   question date (temporal questions count days from it).
// - question_type → kind: single-session-user / -assistant / -preference → recall,
//   multi-session → multi-hop, knowledge-update → update, temporal-reasoning →
//   temporal; a question_id containing `_abs` (the official scripts' test) → abstention, whatever the type.
// - must_include: `[[answer]]` for answers of at most SHORT_ANSWER_WORDS words;
//   longer answers (most preference and multi-session ones) and abstentions get
//   none, and the judge decides.
// - A message marked `has_answer: true` becomes a fact at its turn when it states
//   the answer; otherwise its turn is listed under the probe's meta.
import { SchemaError, answerStatedIn, answerText, isoLocal, safeId, sessionHeaderFor, shortAnswerMustInclude, withHeader } from './shared.js';
import { currentDateLine } from '../../../core/items.js';
import { isAbstentionId } from '../../../core/longmemeval.js';
import { isRecord } from '../../../core/record.js';
import type { Fact, MessageTurn, Probe, ProbeKind, Transcript } from '../../../core/types.js';

export const LONGMEMEVAL_KINDS: Readonly<Record<string, ProbeKind>> = {
  'single-session-user': 'recall',
  'single-session-assistant': 'recall',
  'single-session-preference': 'recall',
  'multi-session': 'multi-hop',
  'knowledge-update': 'update',
  'temporal-reasoning': 'temporal',
};

/** Parses LongMemEval's `2023/05/20 (Sat) 02:21` to `2023-05-20T02:21:00`; undefined when it does not fit. */
export function parseLongMemEvalDate(raw: string): string | undefined {
  const m = /^\s*(\d{4})[/-](\d{1,2})[/-](\d{1,2})(?:\s*\([A-Za-z]+\))?(?:\s+(\d{1,2}):(\d{2}))?\s*$/.exec(raw);
  if (!m) return undefined;
  return isoLocal(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0));
}

interface Session {
  id: string;
  rawDate?: string;
  at?: string;
  messages: unknown[];
}

function readSessions(inst: Record<string, unknown>, where: string): { sessions: Session[]; notes: Record<string, unknown> } {
  const raw = inst.haystack_sessions;
  if (!Array.isArray(raw)) throw new SchemaError(`${where}.haystack_sessions`, 'missing or not a list');
  const dates = Array.isArray(inst.haystack_dates) ? inst.haystack_dates : [];
  const ids = Array.isArray(inst.haystack_session_ids) ? inst.haystack_session_ids : [];
  const notes: Record<string, unknown> = {};
  if (dates.length !== raw.length) notes.haystack_dates_count = dates.length;
  const sessions = raw.map((messages, i): Session => {
    if (!Array.isArray(messages)) throw new SchemaError(`${where}.haystack_sessions[${i}]`, 'a session must be a list of messages');
    const rawDate = typeof dates[i] === 'string' ? (dates[i] as string) : undefined;
    const id = typeof ids[i] === 'string' || typeof ids[i] === 'number' ? String(ids[i]) : `session-${i + 1}`;
    return { id, rawDate, at: rawDate === undefined ? undefined : parseLongMemEvalDate(rawDate), messages };
  });
  if (sessions.every((s) => s.at !== undefined)) {
    const before = sessions.slice();
    // Stable: sessions with the same timestamp keep their order in the file.
    sessions.sort((a, b) => (a.at as string).localeCompare(b.at as string));
    if (sessions.some((s, i) => s !== before[i])) notes.sessions_reordered = true;
  } else {
    notes.unsorted = 'some haystack dates could not be read; sessions kept in file order';
  }
  return { sessions, notes };
}

interface Evidence {
  turn: number;
  text: string;
}

interface Built {
  turns: MessageTurn[];
  evidence: Evidence[];
  notes: Record<string, unknown>;
}

function messageContent(message: Record<string, unknown>): string | undefined {
  if (typeof message.content === 'string') return message.content;
  return answerText(message.content);
}

function addSession(out: Built, session: Session, number: number): void {
  const first = out.turns.length;
  for (const raw of session.messages) {
    const content = isRecord(raw) ? messageContent(raw) : undefined;
    if (!isRecord(raw) || content === undefined) {
      out.notes.skipped_messages = Number(out.notes.skipped_messages ?? 0) + 1;
      continue;
    }
    const open = out.turns.length > first ? out.turns[out.turns.length - 1] : undefined;
    if (raw.role === 'user' || open === undefined) {
      // A session that opens with the assistant gets a header-only user message.
      const turn: MessageTurn = { kind: 'message', user: raw.role === 'user' ? content : '', toolCalls: [] };
      if (raw.role !== 'user') turn.assistant = content;
      out.turns.push(turn);
    } else {
      open.assistant = open.assistant === undefined ? content : `${open.assistant}\n\n${content}`;
    }
    if (raw.role !== 'user' && raw.role !== 'assistant') out.notes.other_roles = true;
    if (raw.has_answer === true) out.evidence.push({ turn: out.turns.length, text: content });
  }
  const head = out.turns[first];
  if (!head) {
    out.notes.empty_sessions = [...((out.notes.empty_sessions as string[] | undefined) ?? []), session.id];
    return;
  }
  head.user = withHeader(sessionHeaderFor(number, session.rawDate, session.at), head.user);
  if (session.at !== undefined) head.at = session.at;
  head.meta = { session_id: session.id, ...(session.rawDate !== undefined ? { date: session.rawDate } : {}) };
}

function evidenceFacts(evidence: Evidence[], answer: string, kind: ProbeKind): { facts: Fact[]; unmatched: number[] } {
  const facts: Fact[] = [];
  const unmatched: number[] = [];
  for (const ev of evidence) {
    if (kind !== 'abstention' && answerStatedIn(ev.text, answer)) {
      if (!facts.some((f) => f.turn === ev.turn)) facts.push({ id: `answer-t${ev.turn}`, text: answer, aliases: [], turn: ev.turn, critical: false });
    } else if (!unmatched.includes(ev.turn)) {
      unmatched.push(ev.turn);
    }
  }
  return { facts, unmatched };
}

function requireString(inst: Record<string, unknown>, key: string, where: string): string {
  const value = inst[key];
  if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  if (typeof value === 'number' && key === 'question_id') return String(value);
  throw new SchemaError(`${where}.${key}`, 'missing or not text');
}

/** Converts one LongMemEval instance; `index` is its position in the file (for messages). */
export function longMemEvalToTranscript(instance: unknown, index: number): Transcript {
  const where = `[${index}]`;
  if (!isRecord(instance)) throw new SchemaError(where, 'a LongMemEval instance must be an object');
  const questionId = requireString(instance, 'question_id', where);
  const questionType = requireString(instance, 'question_type', where);
  const question = requireString(instance, 'question', where);
  const answer = answerText(instance.answer);
  if (answer === undefined || answer.length === 0) throw new SchemaError(`${where}.answer`, 'missing, or not text or a number');
  // The official scripts' own test (a substring), so the import and the scoring agree on every id.
  const abstention = isAbstentionId(questionId);
  // Own keys only: a question_type of "constructor" or "__proto__" is an unknown type, not Object's.
  const known = Object.hasOwn(LONGMEMEVAL_KINDS, questionType);
  const kind: ProbeKind = abstention ? 'abstention' : known ? LONGMEMEVAL_KINDS[questionType] : 'recall';

  const { sessions, notes } = readSessions(instance, where);
  const built: Built = { turns: [], evidence: [], notes };
  sessions.forEach((s, i) => addSession(built, s, i + 1));
  if (built.turns.length === 0) throw new SchemaError(`${where}.haystack_sessions`, 'no session has any message');

  const { facts, unmatched } = evidenceFacts(built.evidence, answer, kind);
  const questionDate = typeof instance.question_date === 'string' ? instance.question_date : undefined;
  // The question id on the probe too: a probe record (what export and the metrics read) carries only its probe's meta.
  const probeMeta: Record<string, unknown> = { question_type: questionType, question_id: questionId, question };
  if (questionDate !== undefined) probeMeta.question_date = questionDate;
  if (Array.isArray(instance.answer_session_ids)) probeMeta.answer_session_ids = instance.answer_session_ids.map(String);
  if (unmatched.length > 0) probeMeta.evidence_turns = unmatched;
  if (!known) probeMeta.unknown_question_type = true;
  const probe: Probe = {
    id: 'q1',
    afterTurn: built.turns.length,
    question: questionDate ? `${currentDateLine(questionDate)}\n${question}` : question,
    answer,
    mustInclude: abstention ? [] : shortAnswerMustInclude(answer),
    facts: facts.map((f) => f.id),
    kind,
    meta: probeMeta,
  };
  const id = `lme-${safeId(questionId)}`;
  const tags = ['longmemeval', safeId(questionType), ...(abstention ? ['abstention'] : [])];
  return {
    id,
    title: `LongMemEval ${questionId} (${questionType})`,
    tags,
    system:
      'You are a chat assistant with a long history of conversations with this user. ' +
      'Each earlier session starts with its date in brackets. Answer from what was said in those sessions.',
    turns: built.turns,
    facts,
    probes: [probe],
    file: `${id}.yaml`,
    meta: { source: 'longmemeval', question_id: questionId, ...built.notes },
  };
}
