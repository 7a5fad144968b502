// How many errored items a run may have and still count as measured. Its own
// module because both the suite config (`max_errors:`) and the CLI
// (`--max-errors`) produce it and the run verdict reads it; harness/run/verdict.ts
// parses the written forms into this shape.
import { z } from 'zod';

export const maxErrorsSchema = z.discriminatedUnion('kind', [
  // At most this many errored items in the whole run.
  z.object({ kind: z.literal('count'), value: z.number().int().min(0) }),
  // At most this share (0–100) of the attempted items of any one stage.
  z.object({ kind: z.literal('percent'), value: z.number().min(0).max(100) }),
]);
