// The judge-calibration set: one YAML file per source excerpt, several
// labelled summaries each (format: datasets/calibration/README.md; the schema
// is harness/schema/calibration.ts), read with the transcript format's parts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { InputError, fileProblem, type Problem } from '../../core/errors.js';
import { turnItems } from '../../core/items.js';
import type { MadeSummary, Probe, Transcript } from '../../core/types.js';
import type { AnswerCalibrationItem, CalibrationItem } from '../../graders/calibrate.js';
import { DEFAULT_SUMMARIZER } from '../../strategies/registry.js';
import { buildSummaryInput, loadSummaryPrompt } from '../../strategies/summary-input.js';
import { ANSWER_CALIBRATION_FORMAT, CALIBRATION_FORMAT, answerCalibrationSchema, calibrationSchema } from '../schema/calibration.js';
import { readTextFile } from '../schema/files.js';
import { readYaml } from '../schema/issues.js';
import { conversationFacts, defaultTranscriptId, dropUndefined, factsOf } from '../schema/turns.js';

/** The calibration set is graded against the cookbook prompt and its 200-word limit. */
export const CALIBRATION_WORD_LIMIT = DEFAULT_SUMMARIZER.word_limit;

/** Default `--out` of `memeval calibrate`: records then live in `.memeval/calibration/<judge-id>.json`, next to the call cache. */
export const DEFAULT_CALIBRATION_OUT = '.memeval';

type CalibrationFile = z.output<typeof calibrationSchema>;
type AnswerCalibrationFile = z.output<typeof answerCalibrationSchema>;

/** Parses one calibration file; every problem is collected into `problems`. */
export function parseCalibrationFile(text: string, file: string, problems: Problem[]): CalibrationItem[] {
  const result = readYaml(text, file, {
    format: CALIBRATION_FORMAT,
    schema: calibrationSchema,
    reportEmpty: (src) => src.problems.push(fileProblem(file, 'the file is empty')),
    facts: { scope: conversationFacts, of: (data) => factsOf(data, 'source') },
  });
  if (!result.ok) {
    problems.push(...result.problems);
    return [];
  }
  return calibrationItems(result.value, file);
}

/** Each summary of the file, as if a summarizer with the cookbook prompt had replaced every source turn. */
function calibrationItems(parsed: CalibrationFile, file: string): CalibrationItem[] {
  const id = parsed.id ?? defaultTranscriptId(file);
  const transcript: Transcript = dropUndefined({ id, title: parsed.title, tags: ['calibration'], turns: parsed.source, facts: parsed.facts, probes: [], file });
  const turns = transcript.turns.length;
  const prompt = loadSummaryPrompt();
  const user = buildSummaryInput(
    transcript.turns.flatMap((turn, i) => turnItems(turn, i + 1)),
    DEFAULT_SUMMARIZER.tool_trim_limit,
  );
  return parsed.summaries.map((s) => {
    const summary: MadeSummary = {
      strategy: 'calibration',
      transcript: id,
      turn: turns,
      coveredTurns: [1, turns],
      index: 1,
      summarizer: 'human-labelled',
      promptPath: prompt.path,
      promptHash: prompt.hash,
      request: { system: prompt.text, user },
      text: s.text.trim(),
      usage: { inputTokens: 0, outputTokens: 0 },
      durationMs: 0,
    };
    return { id: `${id}/${s.id}`, file, category: s.category, transcript, summary, labels: s.labels };
  });
}

/** Loads every `*.yaml` of `dir` (sorted by name); all problems at once as an InputError. */
export function loadCalibrationSet(dir: string): CalibrationItem[] {
  return loadYamlFolder(dir, parseCalibrationFile);
}

type FileParser<T> = (text: string, file: string, problems: Problem[]) => T[];

function loadYamlFolder<T>(dir: string, parse: FileParser<T>): T[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => /\.ya?ml$/i.test(n)).sort();
  } catch {
    throw new InputError([fileProblem(dir, 'calibration folder not found')]);
  }
  if (names.length === 0) throw new InputError([fileProblem(dir, 'no .yaml calibration files in this folder')]);
  const problems: Problem[] = [];
  const items = names.flatMap((n) => {
    // Size checked before reading and strict UTF-8, as transcripts (the set is read with the default limits).
    const read = readTextFile(join(dir, n));
    if (read.ok) return parse(read.text, join(dir, n), problems);
    problems.push(read.problem);
    return [];
  });
  if (problems.length > 0) throw new InputError(problems);
  return items;
}

/** The labelled answers live in `answers/` of the calibration folder. */
export function answerCalibrationDir(dataDir: string): string {
  return join(dataDir, 'answers');
}

/** Parses one answer calibration file; every problem is collected into `problems`. */
export function parseAnswerCalibrationFile(text: string, file: string, problems: Problem[]): AnswerCalibrationItem[] {
  const result = readYaml(text, file, {
    format: ANSWER_CALIBRATION_FORMAT,
    schema: answerCalibrationSchema,
    reportEmpty: (src) => src.problems.push(fileProblem(file, 'the file is empty')),
  });
  if (!result.ok) {
    problems.push(...result.problems);
    return [];
  }
  return answerItems(result.value, file);
}

/**
 * One item per labelled answer. The judges grade from the probe and the
 * answer, so the transcript is an empty shell that only names the file.
 */
function answerItems(parsed: AnswerCalibrationFile, file: string): AnswerCalibrationItem[] {
  const id = parsed.id ?? defaultTranscriptId(file);
  return parsed.probes.flatMap((p) => {
    const probe: Probe = { id: p.id, afterTurn: 0, question: p.question, answer: p.answer, mustInclude: p.must_include, facts: [], kind: p.kind };
    const transcript: Transcript = dropUndefined({ id, title: parsed.title, tags: ['calibration'], turns: [], facts: [], probes: [probe], file });
    return p.answers.map((a) => ({ id: `${id}/${p.id}/${a.id}`, file, label: a.label, transcript, probe, answer: a.text.trim() }));
  });
}

/** Loads every `*.yaml` of an answers folder (sorted by name); all problems at once as an InputError. */
export function loadAnswerCalibrationSet(dir: string): AnswerCalibrationItem[] {
  return loadYamlFolder(dir, parseAnswerCalibrationFile);
}

// ---------------------------------------------------------------------------
// Records: `<out>/calibration/<judge-id>.json` (judge id with anything but
// letters, digits, `.`, `_` and `-` replaced by `_`), and `<out>/calibration.json`
// holding the latest report.

export function calibrationRecordPath(judgeId: string, dir: string): string {
  return join(dir, 'calibration', `${judgeId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/**
 * True when a calibration report for `judgeId` is on record under `dir` (the
 * calibrate `--out`) with every item graded. A bare model name means the openai provider, as in configs,
 * so `gpt-4.1-mini` finds the record of `openai:gpt-4.1-mini`.
 */
export function hasCalibration(judgeId: string, dir: string): boolean {
  const id = judgeId.trim();
  const ids = id === 'offline' || id.includes(':') ? [id] : [id, `openai:${id}`];
  return ids.some((candidate) => recordExists(candidate, dir));
}

function recordExists(judgeId: string, dir: string): boolean {
  const path = calibrationRecordPath(judgeId, dir);
  if (!existsSync(path)) return false;
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as { judge?: unknown; items?: unknown; errors?: unknown; answers?: { errors?: unknown } };
    // A run in which the judge failed on some item (summary or answer) is on file for inspection but does not count.
    const answersClean = record.answers === undefined || record.answers.errors === 0;
    return record.judge === judgeId && typeof record.items === 'number' && record.items > 0 && record.errors === 0 && answersClean;
  } catch {
    return false;
  }
}
