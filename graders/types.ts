// Graders turn a model's output into a verdict. A grader that cannot decide
// reports an error; an error is never a pass.
import type { MadeSummary, Probe, SummaryRecord, Transcript } from '../core/types.js';

export interface Grader<Input, Output> {
  readonly name: string;
  grade(input: Input): Promise<Output>;
}

export interface AnswerInput {
  transcript: Transcript;
  probe: Probe;
  answer: string;
}

export interface JudgeVerdict {
  verdict: 'pass' | 'fail' | 'error';
  reason: string;
  model: string;
}

export interface SummaryInput {
  transcript: Transcript;
  summary: MadeSummary;
  /** The summary made before this one for the same strategy and transcript, if any. */
  previous?: SummaryRecord;
}
