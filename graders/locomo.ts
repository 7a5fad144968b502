// LoCoMo scored by its own evaluation.py rules, with the per-pair F1 every other
// LoCoMo figure in memeval uses (`officialF1`). The rules and the means live in
// core/locomo.ts, so reports/ (which may import only core/) can render them too;
// see that file for each rule and where in evaluation.py it comes from.
import { type LocomoCategory, type LocomoStrategyScores, locomoScore as scoreWith, locomoScores as scoresWith } from '../core/locomo.js';
import type { RunResult } from '../core/types.js';
import { officialF1 } from './exact.js';

export {
  LOCOMO_ADVERSARIAL_PHRASES,
  LOCOMO_CATEGORIES,
  LOCOMO_CATEGORY_NAMES,
  LOCOMO_OVERALL_CATEGORIES,
  locomoCategoryOf,
  type LocomoCategory,
  type LocomoCategoryCell,
  type LocomoCell,
  type LocomoStrategyScores,
} from '../core/locomo.js';

/** evaluation.py's score for one answer: category 1 per comma part, 3 on the gold before ";", 5 by phrase, 2 and 4 token F1. */
export function locomoScore(prediction: string, gold: string, category: LocomoCategory): number {
  return scoreWith(prediction, gold, category, officialF1);
}

/** Per strategy, per category and overall (categories 1–4) means over the run's LoCoMo probes; errors weigh 0 and are counted. */
export function locomoScores(run: Pick<RunResult, 'info' | 'probes'>): LocomoStrategyScores[] {
  return scoresWith(run, locomoScore);
}
