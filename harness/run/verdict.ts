// Whether a run measured what it set out to measure. A run with more errored
// items than `max_errors` allows, or one stopped by an error retries cannot fix,
// is not `complete`: its reports say so at the top and the CLI exits 3.
import type { ErrorStage, MaxErrors, StageErrors } from '../../core/types.js';

export interface RunVerdict {
  status: 'complete' | 'incomplete' | 'failed';
  failure?: string;
}

const STAGE_WORDS: Record<ErrorStage, string> = {
  answer: 'probe answers (answer model)',
  'answer-judge': 'answer grades (answer judge)',
  summarizer: 'summaries (summarizer)',
  'summary-judge': 'summary grades (summary judge)',
};

/** `0`, `5` or `2%`, as the config and `--max-errors` write it. */
function formatMaxErrors(max: MaxErrors): string {
  return max.kind === 'percent' ? `${max.value}%` : String(max.value);
}

/** Parses `--max-errors`: a whole number ≥ 0, or a percentage such as `2%` or `0.5%` (0–100). */
export function parseMaxErrors(text: string): MaxErrors | undefined {
  const value = text.trim();
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(value);
  if (percent) {
    const n = Number(percent[1]);
    return n <= 100 ? { kind: 'percent', value: n } : undefined;
  }
  return /^\d+$/.test(value) ? { kind: 'count', value: Number(value) } : undefined;
}

function overBudget(errors: StageErrors[], max: MaxErrors): boolean {
  if (max.kind === 'count') return errors.reduce((n, s) => n + s.errors, 0) > max.value;
  return errors.some((s) => s.attempted > 0 && (100 * s.errors) / s.attempted > max.value);
}

/** A server's message ends a sentence of ours; quoted so where it ends is plain. */
function quoted(message: string | undefined): string {
  return message === undefined ? '(no message)' : `"${message.replace(/\s+/g, ' ').trim()}"`;
}

function describe(errors: StageErrors[]): string {
  const bad = errors.filter((s) => s.errors > 0);
  const counts = bad.map((s) => `${s.errors} of ${s.attempted} ${STAGE_WORDS[s.stage]}`).join(', ');
  const firsts = bad.map((s) => `First ${s.stage} error: ${quoted(s.firstError)}.`).join(' ');
  return `${counts} errored. ${firsts}`;
}

const RESUME_HINT = 'Every rate in the reports counts these errors as not passed. Fix the cause, then `memeval run --resume RUN_DIR` re-attempts only the errored items.';

/**
 * `fatal` is the reason the run stopped early (the circuit breaker's message);
 * `unattempted` counts probe answers it never got to; `crash` says which
 * jobs threw (the other jobs finished) and what to do about it.
 */
export function judgeRun(errors: StageErrors[], max: MaxErrors, fatal?: string, unattempted = 0, crash?: { what: string; hint: string }): RunVerdict {
  const skipped = unattempted > 0 ? ` ${unattempted} probe answers were not attempted.` : '';
  const counted = errors.some((s) => s.errors > 0) ? ` ${describe(errors)}` : '';
  if (fatal) return { status: 'failed', failure: `The run stopped early: ${fatal}${skipped}${counted}` };
  // A job that threw measured nothing, whatever max_errors allows.
  if (crash) return { status: 'failed', failure: `${crash.what}${skipped}${counted} ${crash.hint}` };
  // No stop and no crash, yet answers owed are missing: whatever lost them, the run did not measure them.
  if (unattempted > 0) {
    return { status: 'incomplete', failure: `${unattempted} probe answers the run owes have no record.${counted} \`memeval run --resume RUN_DIR\` attempts them.` };
  }
  if (!overBudget(errors, max)) return { status: 'complete' };
  return {
    status: 'incomplete',
    failure: `${describe(errors)} That is more than max_errors ${formatMaxErrors(max)} allows. ${RESUME_HINT}`,
  };
}
