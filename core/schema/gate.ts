// A quality gate (`gates:` of the suite config), as the config loader checks
// it and as run.json records it. Rules that need the rest of the config (is
// the strategy configured, is there a baseline) live with the config loader.
import { z } from 'zod';

const GATE_VS = ['baseline-run', 'baseline-strategy'] as const;

export const gateSchema = z.strictObject({
  metric: z.string(),
  strategy: z.string(),
  min: z.number().optional(),
  max: z.number().optional(),
  max_drop: z.number().min(0).optional(),
  vs: z.enum(GATE_VS).optional(),
  significant: z.boolean().optional(),
  /**
   * An optional gate that cannot be evaluated (no baseline, no data, only
   * errored data) is reported as skipped; any other gate fails then.
   */
  optional: z.boolean().optional(),
  /** `file:line:col` of the gate, for messages. */
  where: z.string(),
});
