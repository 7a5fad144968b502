// Known-wrong LoCoMo gold answers, to leave out of an import (`--errata FILE`).
//
// Formats read
// - dial481/locomo-audit's error lists (`audit/errors_conv_<n>.json`, or the
//   consolidated `errors.json`): entries with `question_id: "locomo_<conv>_qa<q>"`,
//   where <conv> is the conversation's 0-based position in locomo10.json and <q>
//   the question's 0-based position in its `qa` list, plus `question` and
//   `error_type`. Entries whose `error_type` is WRONG_CITATION are kept in the
//   import: the audit found their gold answer right and only the evidence ids wrong.
// - A plain list of `{ "sample_id": "conv-26" | "conversation": 0, "qa_index": 1,
//   "question": "…" }`: the conversation by sample_id or 0-based position, the
//   question by 0-based qa index, by its text, or both.
// A file may be a JSON list of entries, or an object holding one under `errors` or
// `errata` (or lists keyed by conversation). When an entry gives the question text,
// it must match the data: errata made for another version of the file must not
// silently drop the wrong questions.
import { readFileSync } from 'node:fs';
import { InputError, fileProblem, type Problem } from '../../../core/errors.js';
import { isRecord } from '../../../core/record.js';

/** Error types whose gold answer is right (only the cited evidence is wrong). */
export const CITATION_ONLY_ERRORS: ReadonlySet<string> = new Set(['WRONG_CITATION']);

export interface ErrataEntry {
  /** The conversation: its 0-based position in the LoCoMo file, or its sample_id. */
  conversation: number | string;
  /** 0-based position in the conversation's `qa` list. */
  qaIndex?: number;
  /** The question as the errata quote it; checked against the data. */
  question?: string;
  /** Where the entry is, for messages (`errors.json[3]`). */
  source: string;
}

export interface Errata {
  entries: ErrataEntry[];
  /** Entries left out because only their citation is wrong. */
  citationOnly: number;
}

const AUDIT_ID = /^locomo_(\d+)_qa(\d+)$/;

function entryList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (!isRecord(value)) return undefined;
  for (const key of ['errors', 'errata']) if (Array.isArray(value[key])) return value[key] as unknown[];
  const lists = Object.values(value);
  return lists.length > 0 && lists.every(Array.isArray) ? (lists as unknown[][]).flat() : undefined;
}

function readEntry(raw: Record<string, unknown>, source: string): ErrataEntry | string {
  const question = typeof raw.question === 'string' && raw.question.trim().length > 0 ? raw.question : undefined;
  if (typeof raw.question_id === 'string') {
    const m = AUDIT_ID.exec(raw.question_id.trim());
    if (!m) return `question_id "${raw.question_id}" is not of the form locomo_<conversation>_qa<question>`;
    return { conversation: Number(m[1]), qaIndex: Number(m[2]), question, source };
  }
  const conversation = typeof raw.sample_id === 'string' ? raw.sample_id : raw.conversation;
  if (!(typeof conversation === 'string' && conversation.length > 0) && !(Number.isInteger(conversation) && (conversation as number) >= 0)) {
    return 'needs question_id, sample_id, or conversation (a sample_id or a 0-based position)';
  }
  const qaIndex = raw.qa_index;
  if (qaIndex !== undefined && !(Number.isInteger(qaIndex) && (qaIndex as number) >= 0)) return 'qa_index must be a whole number ≥ 0';
  if (qaIndex === undefined && question === undefined) return 'needs qa_index or question';
  return { conversation: conversation as number | string, qaIndex: qaIndex as number | undefined, question, source };
}

/** Reads errata from parsed JSON; `file` names the source in messages. */
export function parseErrata(value: unknown, file: string): { errata: Errata; problems: Problem[] } {
  const errata: Errata = { entries: [], citationOnly: 0 };
  const list = entryList(value);
  if (list === undefined) return { errata, problems: [fileProblem(file, 'errata must be a JSON list of entries (or an object with an "errors" list)')] };
  const problems: Problem[] = [];
  list.forEach((raw, i) => {
    const source = `${file}[${i}]`;
    if (!isRecord(raw)) {
      problems.push(fileProblem(file, `entry ${i}: not an object`));
      return;
    }
    if (typeof raw.error_type === 'string' && CITATION_ONLY_ERRORS.has(raw.error_type.toUpperCase())) {
      errata.citationOnly++;
      return;
    }
    const entry = readEntry(raw, source);
    if (typeof entry === 'string') problems.push(fileProblem(file, `entry ${i}: ${entry}`));
    else errata.entries.push(entry);
  });
  return { errata, problems };
}

/** Reads and merges errata files; throws InputError naming every bad entry. */
export function readErrataFiles(files: readonly string[]): Errata {
  const merged: Errata = { entries: [], citationOnly: 0 };
  const problems: Problem[] = [];
  for (const file of files) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(file, 'utf8').replace(/^\ufeff/, '')) as unknown;
    } catch (e) {
      problems.push(fileProblem(file, `cannot read errata: ${(e as Error).message}`));
      continue;
    }
    const { errata, problems: found } = parseErrata(value, file);
    merged.entries.push(...errata.entries);
    merged.citationOnly += errata.citationOnly;
    problems.push(...found);
  }
  if (problems.length > 0) throw new InputError(problems);
  return merged;
}

/** Question texts compare without case or spacing differences (the audit retyped some). */
export function sameQuestion(a: string, b: string): boolean {
  const norm = (s: string): string => s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return norm(a) === norm(b);
}
