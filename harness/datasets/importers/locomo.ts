// Converts one LoCoMo sample (snap-research/locomo, data/locomo10.json) into a
// transcript.
//
// Mapping
// - Sessions `session_<n>` in order of n become turns. LoCoMo is two people
//   talking, so speaker_a's lines are user messages and speaker_b's are assistant
//   messages; a run of lines by one speaker is joined, and each run starts with
//   the speaker's name (the questions name people, so the names must be in context).
// - A session's first turn opens with a `[Session n]` header line and carries the
//   date as `at:` (ISO, no zone: LoCoMo gives none), which memeval shows as a
//   `[date]` prefix; a date that cannot be read goes into the header instead
//   (`[Session n: raw date]`), so the date appears once either way. The raw date
//   string stays in the turn's meta.
// - Shared images become `[shares <blip_caption>]` after the line's text.
// - Every QA item becomes a probe after the last turn. Categories follow the
//   released data and LoCoMo's own scorer (task_eval/evaluation.py): 1 multi-hop
//   (answers are comma lists, scored part by part), 2 temporal, 3 open-domain /
//   commonsense → recall, 4 single-hop → recall, 5 adversarial → abstention
//   (scored by the reply saying the information is not mentioned).
// - Facts: for each evidence utterance, the answer (or, for a comma-list answer,
//   each part) becomes a fact at that turn when it is stated in the utterance.
//   Otherwise the evidence only goes under the probe's meta: no fact is invented.
//   A fact whose words are said in GENERIC_FACT_MIN_TURNS or more turns of the
//   conversation ("family", "painting") is too generic to track: it is left out
//   of `facts` and of its probes' facts (so it counts neither for retention nor
//   for `answerable`), and recorded under the transcript's `meta.generic_facts`
//   (each with `meta.generic: true`) and the probe's `meta.generic_facts` (ids).
// - must_include: `[[answer]]` for answers of at most SHORT_ANSWER_WORDS words (a
//   short comma list gets one entry per part); longer answers and abstentions get
//   none, and the judge decides.
// - Quirks are tolerated and recorded in meta: date keys without a session,
//   malformed evidence ids, numeric answers, adversarial items without `answer`,
//   image captions without an image URL.
import { normalizeDiaId } from '../../../core/items.js';
import { GENERIC_FACTS_KEY, type RecordProblem, SHORT_ANSWER_WORDS, SchemaError, answerStatedIn, answerText, isoLocal, monthNumber, safeId, sessionHeaderFor, shortAnswerMustInclude, splitGenericFacts, withHeader } from './shared.js';
import { isRecord } from '../../../core/record.js';
import { countWords } from '../../../core/text.js';
import type { Fact, MessageTurn, Probe, ProbeKind, Transcript } from '../../../core/types.js';

// The canonical dialogue id lives in core: attribution reads the ids this importer files.
export { normalizeDiaId };

export const LOCOMO_ABSTENTION_ANSWER = 'Not mentioned in the conversation.';

/** LoCoMo QA category → probe kind (see the mapping notes above). */
export const LOCOMO_CATEGORIES: Readonly<Record<number, { name: string; kind: ProbeKind }>> = {
  1: { name: 'multi-hop', kind: 'multi-hop' },
  2: { name: 'temporal', kind: 'temporal' },
  3: { name: 'open-domain', kind: 'recall' },
  4: { name: 'single-hop', kind: 'recall' },
  5: { name: 'adversarial', kind: 'abstention' },
};

/** Parses LoCoMo's `1:56 pm on 8 May, 2023` to `2023-05-08T13:56:00`; undefined when it does not fit. */
export function parseLocomoDate(raw: string): string | undefined {
  const m = /^\s*(\d{1,2})[:.](\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+)\.?,?\s+(\d{4})\s*$/i.exec(raw);
  if (!m) return undefined;
  let hour = Number(m[1]);
  if (hour < 1 || hour > 12) return undefined;
  const pm = m[3].toLowerCase() === 'p';
  if (hour === 12) hour = pm ? 12 : 0;
  else if (pm) hour += 12;
  const month = monthNumber(m[5]);
  if (month === undefined) return undefined;
  return isoLocal(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** Splits an evidence entry that packs several ids (`"D8:6; D9:17"`). */
function evidenceIds(evidence: unknown): string[] {
  const list = Array.isArray(evidence) ? evidence : evidence === undefined || evidence === null ? [] : [evidence];
  const out: string[] = [];
  for (const entry of list) {
    const text = typeof entry === 'string' ? entry : String(entry);
    for (const part of text.split(/[;,]|\s+(?=D)/i)) if (part.trim().length > 0) out.push(part.trim());
  }
  return out;
}

interface Utterance {
  turn: number;
  text: string;
}

interface Conversation {
  speakerA: string;
  speakerB: string;
  turns: MessageTurn[];
  /** Every dialogue id, as given and in canonical form, to its utterance. */
  utterances: Map<string, Utterance>;
  speakers: Set<string>;
  notes: Record<string, unknown>;
}

function utteranceText(line: Record<string, unknown>): string {
  const text = typeof line.text === 'string' ? line.text.trim() : '';
  const caption = typeof line.blip_caption === 'string' ? line.blip_caption.trim() : '';
  if (caption.length === 0) return text;
  const image = `[shares ${caption}]`;
  return text.length > 0 ? `${text} ${image}` : image;
}

/** A shared image whose caption is kept but whose URL is missing (the text still says what was shared). */
function captionWithoutUrl(line: Record<string, unknown>): boolean {
  if (typeof line.blip_caption !== 'string' || line.blip_caption.trim().length === 0) return false;
  const url = line.img_url;
  return !(typeof url === 'string' ? url.trim().length > 0 : Array.isArray(url) && url.some((u) => typeof u === 'string' && u.trim().length > 0));
}

interface Line {
  diaId: string;
  text: string;
  /** A shared image's URL and search query, kept in the turn's meta (the text keeps only its caption). */
  image?: SharedImage;
}

interface SharedImage {
  dia_id: string;
  url?: string | string[];
  query?: string;
  caption: string;
}

/** The image a line shares, with what LoCoMo records of it, or undefined. */
function sharedImage(raw: Record<string, unknown>): SharedImage | undefined {
  const caption = typeof raw.blip_caption === 'string' ? raw.blip_caption.trim() : '';
  if (caption.length === 0) return undefined;
  const image: SharedImage = { dia_id: typeof raw.dia_id === 'string' ? raw.dia_id : '', caption };
  if (typeof raw.img_url === 'string' || (Array.isArray(raw.img_url) && raw.img_url.every((u) => typeof u === 'string'))) image.url = raw.img_url as string | string[];
  if (typeof raw.query === 'string') image.query = raw.query;
  return image;
}

interface Run {
  side: 'user' | 'assistant';
  text: string;
  lines: Line[];
}

/** Consecutive lines by one speaker become one run; the speaker's name opens it. */
function sessionRuns(lines: Record<string, unknown>[], conv: Conversation): Run[] {
  const runs: Run[] = [];
  let lastSpeaker: string | undefined;
  for (const raw of lines) {
    const speaker = typeof raw.speaker === 'string' && raw.speaker.trim().length > 0 ? raw.speaker.trim() : 'Unknown';
    const image = sharedImage(raw);
    const line: Line = { diaId: typeof raw.dia_id === 'string' ? raw.dia_id : '', text: utteranceText(raw), ...(image ? { image } : {}) };
    if (captionWithoutUrl(raw)) conv.notes.images_without_url = Number(conv.notes.images_without_url ?? 0) + 1;
    conv.speakers.add(speaker);
    const current = runs[runs.length - 1];
    if (current && speaker === lastSpeaker) {
      current.text += `\n${line.text}`;
      current.lines.push(line);
      continue;
    }
    runs.push({ side: speaker === conv.speakerA ? 'user' : 'assistant', text: `${speaker}: ${line.text}`, lines: [line] });
    lastSpeaker = speaker;
  }
  return runs;
}

interface DraftTurn {
  user: string;
  assistant?: string;
  lines: Line[];
}

/** Pairs runs into turns: a speaker_a run opens a turn, the next run answers it. */
function pairRuns(runs: Run[]): DraftTurn[] {
  const drafts: DraftTurn[] = [];
  for (const run of runs) {
    const open = drafts[drafts.length - 1];
    if (run.side === 'user') drafts.push({ user: run.text, lines: [...run.lines] });
    else if (!open) drafts.push({ user: '', assistant: run.text, lines: [...run.lines] });
    else {
      // A third speaker can follow speaker_b; their lines join the same reply.
      open.assistant = open.assistant === undefined ? run.text : `${open.assistant}\n${run.text}`;
      open.lines.push(...run.lines);
    }
  }
  return drafts;
}

function sessionNumbers(conv: Record<string, unknown>): { sessions: number[]; dated: number[] } {
  const sessions: number[] = [];
  const dated: number[] = [];
  for (const key of Object.keys(conv)) {
    const s = /^session_(\d+)$/.exec(key);
    if (s) sessions.push(Number(s[1]));
    const d = /^session_(\d+)_date_time$/.exec(key);
    if (d) dated.push(Number(d[1]));
  }
  return { sessions: sessions.sort((a, b) => a - b), dated: dated.sort((a, b) => a - b) };
}

function addSession(conv: Conversation, n: number, lines: Record<string, unknown>[], rawDate: string | undefined): void {
  const drafts = pairRuns(sessionRuns(lines, conv));
  drafts.forEach((draft, i) => {
    const turn: MessageTurn = { kind: 'message', user: draft.user, toolCalls: [], meta: {} };
    if (draft.assistant !== undefined) turn.assistant = draft.assistant;
    if (i === 0) startSession(turn, n, rawDate);
    turn.meta = { ...turn.meta, dia_ids: draft.lines.map((l) => l.diaId) };
    const images = draft.lines.flatMap((l) => (l.image ? [l.image] : []));
    if (images.length > 0) turn.meta.images = images;
    conv.turns.push(turn);
    for (const line of draft.lines) indexUtterance(conv, line, conv.turns.length);
  });
}

function startSession(turn: MessageTurn, n: number, rawDate: string | undefined): void {
  const at = rawDate === undefined ? undefined : parseLocomoDate(rawDate);
  turn.user = withHeader(sessionHeaderFor(n, rawDate, at), turn.user);
  if (at !== undefined) turn.at = at;
  turn.meta = { session: n };
  if (rawDate !== undefined) turn.meta.date = rawDate;
  if (rawDate !== undefined && at === undefined) turn.meta.unparsed_date = true;
}

function indexUtterance(conv: Conversation, line: Line, turn: number): void {
  const utterance = { turn, text: line.text };
  if (line.diaId && !conv.utterances.has(line.diaId)) conv.utterances.set(line.diaId, utterance);
  const canonical = normalizeDiaId(line.diaId);
  if (canonical && !conv.utterances.has(canonical)) conv.utterances.set(canonical, utterance);
}

function readConversation(raw: Record<string, unknown>, where: string): Conversation {
  const speakerA = raw.speaker_a;
  const speakerB = raw.speaker_b;
  if (typeof speakerA !== 'string' || typeof speakerB !== 'string') {
    throw new SchemaError(`${where}.conversation`, 'speaker_a and speaker_b must be strings');
  }
  const conv: Conversation = { speakerA, speakerB, turns: [], utterances: new Map(), speakers: new Set(), notes: {} };
  const { sessions, dated } = sessionNumbers(raw);
  const empty: number[] = [];
  for (const n of sessions) {
    const lines = raw[`session_${n}`];
    if (!Array.isArray(lines)) throw new SchemaError(`${where}.conversation.session_${n}`, 'a session must be a list of utterances');
    const usable = lines.filter(isRecord);
    if (usable.length !== lines.length) conv.notes[`session_${n}_skipped_lines`] = lines.length - usable.length;
    if (usable.length === 0) {
      empty.push(n);
      continue;
    }
    const rawDate = raw[`session_${n}_date_time`];
    addSession(conv, n, usable, typeof rawDate === 'string' ? rawDate : undefined);
  }
  if (empty.length > 0) conv.notes.empty_sessions = empty;
  const undated = dated.filter((n) => !sessions.includes(n));
  if (undated.length > 0) conv.notes.dates_without_session = undated;
  const others = [...conv.speakers].filter((s) => s !== speakerA && s !== speakerB).sort();
  if (others.length > 0) conv.notes.other_speakers = others;
  return conv;
}

interface FactBook {
  facts: Fact[];
  byKey: Map<string, Fact>;
}

function factFor(book: FactBook, diaId: string, turn: number, phrase: string): Fact {
  const key = `${turn}|${phrase.toLowerCase()}`;
  const known = book.byKey.get(key);
  if (known) return known;
  const base = diaId.replace(':', '-');
  const taken = new Set(book.facts.map((f) => f.id));
  let id = base;
  for (let i = 2; taken.has(id); i++) id = `${base}-${i}`;
  const fact: Fact = { id, text: phrase, aliases: [], turn, critical: false, meta: { evidence: diaId } };
  book.facts.push(fact);
  book.byKey.set(key, fact);
  return fact;
}

/** A multi-hop answer lists its parts with commas; LoCoMo scores each part, and so do we
 * (each part is looked for in the evidence, and a short list needs every part, in any order). */
function answerParts(answer: string, kind: ProbeKind): string[] {
  if (kind !== 'multi-hop' || !answer.includes(', ')) return [answer];
  const parts = answer.split(', ').map((p) => p.trim()).filter((p) => p.length > 0);
  return parts.length > 1 ? parts : [answer];
}

function mustIncludeFor(answer: string, parts: string[], kind: ProbeKind): string[][] {
  if (kind === 'abstention' || countWords(answer, 'runs') > SHORT_ANSWER_WORDS) return [];
  if (parts.length > 1) return parts.map((p) => [p]);
  return shortAnswerMustInclude(answer);
}

interface QaContext {
  conv: Conversation;
  book: FactBook;
  lastTurn: number;
}

function qaToProbe(qa: Record<string, unknown>, index: number, ctx: QaContext): Probe | RecordProblem {
  const where = `qa[${index}]`;
  if (typeof qa.question !== 'string' || qa.question.trim().length === 0) return { where, reason: 'no question' };
  const category = typeof qa.category === 'number' ? qa.category : Number(qa.category);
  const known = LOCOMO_CATEGORIES[category];
  const kind: ProbeKind = known?.kind ?? 'recall';
  const given = answerText(qa.answer);
  if (kind !== 'abstention' && (given === undefined || given.length === 0)) return { where, reason: 'no answer' };
  const answer = kind === 'abstention' ? LOCOMO_ABSTENTION_ANSWER : (given as string);
  const meta: Record<string, unknown> = { category: qa.category ?? null, category_name: known?.name ?? 'unknown' };
  if (kind === 'abstention' && given !== undefined) meta.dataset_answer = given;
  const adversarial = answerText(qa.adversarial_answer);
  if (adversarial !== undefined) meta.adversarial_answer = adversarial;
  const parts = answerParts(answer, kind);
  const factIds = linkEvidence(qa.evidence, kind === 'abstention' ? [] : parts, ctx, meta);
  return {
    id: `q${index + 1}`,
    afterTurn: ctx.lastTurn,
    question: qa.question.trim(),
    answer,
    mustInclude: mustIncludeFor(answer, parts, kind),
    facts: factIds,
    kind,
    meta,
  };
}

/** Resolves evidence ids to turns and plants a fact where an answer phrase is stated. */
function linkEvidence(evidence: unknown, phrases: string[], ctx: QaContext, meta: Record<string, unknown>): string[] {
  const ids = evidenceIds(evidence);
  if (ids.length > 0) meta.evidence = ids;
  const unresolved: string[] = [];
  const unmatched: string[] = [];
  const factIds: string[] = [];
  for (const raw of ids) {
    const canonical = normalizeDiaId(raw);
    const utterance = ctx.conv.utterances.get(raw) ?? (canonical ? ctx.conv.utterances.get(canonical) : undefined);
    if (!utterance) {
      unresolved.push(raw);
      continue;
    }
    const stated = phrases.filter((p) => answerStatedIn(utterance.text, p));
    for (const phrase of stated) {
      const fact = factFor(ctx.book, canonical ?? raw, utterance.turn, phrase);
      if (!factIds.includes(fact.id)) factIds.push(fact.id);
    }
    if (stated.length === 0) unmatched.push(`${raw} (turn ${utterance.turn})`);
  }
  if (unresolved.length > 0) meta.unresolved_evidence = unresolved;
  if (unmatched.length > 0 && phrases.length > 0) meta.evidence_without_answer = unmatched;
  return factIds;
}

/**
 * The facts worth tracking; generic ones (see shared.ts GENERIC_FACT_MIN_TURNS)
 * go to the transcript's meta and out of every probe's facts, each probe naming
 * the ones it lost so a reader can see why it names fewer facts than evidence.
 */
function withoutGenericFacts(facts: Fact[], turns: MessageTurn[], probes: Probe[], meta: Record<string, unknown>): Fact[] {
  const { kept, generic } = splitGenericFacts(facts, turns);
  if (generic.length === 0) return kept;
  const ids = new Set(generic.map((f) => f.id));
  for (const probe of probes) {
    const lost = probe.facts.filter((id) => ids.has(id));
    if (lost.length === 0) continue;
    probe.facts = probe.facts.filter((id) => !ids.has(id));
    probe.meta = { ...probe.meta, [GENERIC_FACTS_KEY]: lost };
  }
  meta[GENERIC_FACTS_KEY] = generic.sort((a, b) => a.turn - b.turn);
  return kept;
}

/** Converts one LoCoMo sample; `index` is its position in the file (for ids and messages). */
export function locomoSampleToTranscript(sample: unknown, index: number): Transcript {
  const where = `[${index}]`;
  if (!isRecord(sample)) throw new SchemaError(where, 'a LoCoMo sample must be an object');
  if (!isRecord(sample.conversation)) throw new SchemaError(`${where}.conversation`, 'missing or not an object');
  if (!Array.isArray(sample.qa)) throw new SchemaError(`${where}.qa`, 'missing or not a list');
  const rawId = typeof sample.sample_id === 'string' || typeof sample.sample_id === 'number' ? String(sample.sample_id) : `sample-${index + 1}`;
  const conv = readConversation(sample.conversation, where);
  if (conv.turns.length === 0) throw new SchemaError(`${where}.conversation`, 'no session has any utterance');
  const ctx: QaContext = { conv, book: { facts: [], byKey: new Map() }, lastTurn: conv.turns.length };
  const probes: Probe[] = [];
  const skipped: RecordProblem[] = [];
  sample.qa.forEach((qa, i) => {
    const result = isRecord(qa) ? qaToProbe(qa, i, ctx) : { where: `qa[${i}]`, reason: 'not an object' };
    if ('reason' in result) skipped.push(result);
    else probes.push(result);
  });
  const meta: Record<string, unknown> = { source: 'locomo', sample_id: rawId, speaker_a: conv.speakerA, speaker_b: conv.speakerB, ...conv.notes };
  if (skipped.length > 0) meta.skipped_qa = skipped.map((s) => `${s.where}: ${s.reason}`);
  const facts = withoutGenericFacts(ctx.book.facts, conv.turns, probes, meta);
  return {
    id: `locomo-${safeId(rawId)}`,
    title: `LoCoMo ${rawId}: ${conv.speakerA} and ${conv.speakerB}`,
    tags: ['locomo'],
    system:
      `The conversation below is between two people. User messages are ${conv.speakerA}'s, ` +
      `assistant messages are ${conv.speakerB}'s; each session starts with its date in brackets. ` +
      'Answer questions about the conversation from what was said in it.',
    turns: conv.turns,
    facts: facts.sort((a, b) => a.turn - b.turn),
    probes,
    file: `locomo-${safeId(rawId)}.yaml`,
    meta,
  };
}
