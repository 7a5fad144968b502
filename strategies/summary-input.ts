// What every summarizer sends: the cookbook's LLMSummarizer input (one
// `ROLE: text` line per item) under a summary prompt loaded from a file, so a
// prompt change shows up as a diff and a hash in reports.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, relative } from 'node:path';
import { fileProblem, InputError } from '../core/errors.js';
import { isSent, itemLabel, itemText } from '../core/items.js';
import { packagePath } from '../core/package-root.js';
import type { LabelledLine } from '../core/tokens.js';
import type { AgentInputItem } from '../core/types.js';
import { DEFAULT_SUMMARIZER, type StrategyOptions, type SummarizerOptions } from './registry.js';

/** The synthetic user line that precedes a summary (the cookbook's shadow prompt). */
export const SUMMARY_SHADOW = 'Summarize the conversation we had so far.';

/**
 * The cookbook's SUMMARY_PROMPT, shipped verbatim in `strategies/prompts/`.
 * Found from the package root, not from this module: the build runs from
 * `dist/strategies/`, which holds no prompts.
 */
export const DEFAULT_SUMMARY_PROMPT_PATH = packagePath('strategies/prompts/cookbook-summary.md');

/**
 * How the built-in prompt is named in records: where memeval is installed is
 * machine-dependent and says nothing about the prompt, so it gets a fixed label.
 */
export const BUILTIN_PROMPT_LABEL = 'builtin:cookbook-summary.md';

/**
 * A prompt path fit for reports and run.json: relative to `from` (the
 * config's folder or the working directory), never an absolute local path.
 */
export function promptLabel(path: string, from: string = process.cwd()): string {
  if (path === DEFAULT_SUMMARY_PROMPT_PATH) return BUILTIN_PROMPT_LABEL;
  if (!isAbsolute(path)) return path;
  const rel = relative(from, path);
  // On another drive (Windows) there is no relative path; the file name still names the prompt.
  return isAbsolute(rel) ? basename(path) : rel;
}

export interface SummaryPrompt {
  text: string;
  path: string;
  /** First 12 hex digits of the sha256 of the text. */
  hash: string;
  /**
   * How summary records name the prompt: `promptLabel(path)`, relative to the
   * working directory, since a summarizer does not know the config's folder.
   */
  label: string;
}

const prompts = new Map<string, SummaryPrompt>();

/** Reads a summary prompt file once per path; the default is the cookbook prompt. */
export function loadSummaryPrompt(path: string = DEFAULT_SUMMARY_PROMPT_PATH): SummaryPrompt {
  const hit = prompts.get(path);
  if (hit) return hit;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : String(err);
    throw new InputError([fileProblem(path, `cannot read the summary prompt (${reason})`)]);
  }
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 12);
  const prompt = { text, path, hash, label: promptLabel(path) };
  prompts.set(path, prompt);
  return prompt;
}

function snippet(item: AgentInputItem, toolTrimLimit: number): LabelledLine | undefined {
  // A model's private reasoning is never sent: summarised, it would reach the model as text.
  if (!isSent(item)) return undefined;
  const label = itemLabel(item);
  let text = itemText(item).trim();
  if (text.length === 0) return undefined;
  // Tool outputs can be huge; the cookbook keeps only their head.
  if (label === 'TOOL' && text.length > toolTrimLimit) text = `${text.slice(0, toolTrimLimit)} …`;
  // The body apart too: token counts of the line start from the body's (TokenCounter.labelledLines).
  return { label, body: text, text: `${label}: ${text}` };
}

/**
 * Each item's line, per tool trim limit, made once: a strategy summarises the
 * same items again and again (an earlier summary, the turns since), and an item
 * is never changed once it is in a session (token counts are remembered per
 * item on the same ground). The same line object each time also keeps the
 * memos keyed on it (token counts, statements) from hashing it anew.
 */
const snippets = new Map<number, WeakMap<object, LabelledLine | null>>();

function cachedSnippet(item: AgentInputItem, toolTrimLimit: number): LabelledLine | undefined {
  let byItem = snippets.get(toolTrimLimit);
  if (!byItem) {
    byItem = new WeakMap();
    snippets.set(toolTrimLimit, byItem);
  }
  let line = byItem.get(item as object);
  if (line === undefined) {
    line = snippet(item, toolTrimLimit) ?? null;
    byItem.set(item as object, line);
  }
  return line ?? undefined;
}

/** The lines of `buildSummaryInput`, one per item with text, each with its label and body. */
export function summaryInputParts(items: AgentInputItem[], toolTrimLimit: number): LabelledLine[] {
  const lines: LabelledLine[] = [];
  for (const item of items) {
    const line = cachedSnippet(item, toolTrimLimit);
    if (line !== undefined) lines.push(line);
  }
  return lines;
}

/** The summarizer's user content: one `ROLE: text` line per item with text. */
export function buildSummaryInput(items: AgentInputItem[], toolTrimLimit: number): string {
  return summaryInputParts(items, toolTrimLimit)
    .map((line) => line.text)
    .join('\n');
}

/** The `summarizer:` option of a strategy, or the defaults when it was not given. */
export function summarizerOptionsOf(options: StrategyOptions): SummarizerOptions {
  const value = options.summarizer;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { ...DEFAULT_SUMMARIZER, ...value };
  return { ...DEFAULT_SUMMARIZER };
}
