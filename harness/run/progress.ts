// Progress for long runs: one redrawn line on a terminal, plain lines in CI
// and pipes (at most one every few seconds, so logs stay readable).
import { ERROR_STAGES, type ErrorStage } from '../../core/types.js';

export interface ProgressCounts {
  calls: number;
  cacheHits: number;
  /** Failed model calls (after retries). */
  errors: number;
  /** Items that ended as errors, per stage; shown whenever any is non-zero. */
  stages?: Record<ErrorStage, number>;
}

/** Errored items per stage when the run counts them, else failed calls. */
function errorText(c: ProgressCounts): string {
  if (!c.stages) return `errors ${c.errors}`;
  const stages = c.stages;
  const total = ERROR_STAGES.reduce((n, stage) => n + stages[stage], 0);
  if (total === 0) return 'errors 0';
  return `errors ${total} (${ERROR_STAGES.map((stage) => `${stage} ${stages[stage]}`).join(' · ')})`;
}

/** Where progress lines go: a terminal is redrawn in place, anything else gets a line every few seconds. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** For passes whose progress is not the user's to watch (a `--batch` run's rounds). */
export const NO_PROGRESS: ProgressStream = { write: () => true };

export class Progress {
  private done = 0;
  private lastPlain = 0;
  private lastDraw = 0;
  private readonly started = Date.now();
  private readonly tty: boolean;

  constructor(
    private readonly total: number,
    private readonly counts: () => ProgressCounts,
    private readonly stream: ProgressStream = process.stderr,
    private readonly plainEveryMs = 5000,
    // Redrawing on every tick of a 30,000-probe run would cost more than the run's own output.
    private readonly drawEveryMs = 100,
  ) {
    this.tty = Boolean(stream.isTTY) && !process.env.CI;
  }

  tick(n = 1): void {
    this.done += n;
    const now = Date.now();
    if (this.tty) {
      if (now - this.lastDraw < this.drawEveryMs && this.done < this.total) return;
      this.lastDraw = now;
      this.stream.write(`\r${this.line()}\x1b[K`);
    } else if (now - this.lastPlain >= this.plainEveryMs || this.done === this.total) {
      this.lastPlain = now;
      this.stream.write(`${this.line()}\n`);
    }
  }

  /** A line of its own (a job that failed): on a terminal the progress line is drawn again below it. */
  note(text: string): void {
    if (this.tty) this.stream.write(`\r\x1b[K${text}\n${this.line()}\x1b[K`);
    else this.stream.write(`${text}\n`);
  }

  finish(): void {
    if (this.tty) this.stream.write(`\r${this.line()}\x1b[K\n`);
  }

  line(): string {
    const c = this.counts();
    const pct = this.total ? Math.floor((100 * this.done) / this.total) : 100;
    return `${this.done}/${this.total} (${pct}%) · calls ${c.calls} · cache hits ${c.cacheHits} · ${errorText(c)} · ETA ${this.eta()}`;
  }

  private eta(): string {
    // The first ticks include start-up and replay time, which would promise hours for a run of minutes.
    if (this.done === 0 || this.done * 100 < this.total) return '?';
    const elapsed = Date.now() - this.started;
    const left = Math.max(0, Math.round(((this.total - this.done) * elapsed) / this.done / 1000));
    return left >= 60 ? `${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s` : `${left}s`;
  }
}
