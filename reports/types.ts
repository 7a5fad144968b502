// A reporter writes one or more files for a finished (or resumed) run.
import type { RunResult } from '../core/types.js';

export interface Reporter {
  readonly name: string;
  /** Writes into `dir` and returns the paths it wrote. */
  write(run: RunResult, dir: string): Promise<string[]>;
}
