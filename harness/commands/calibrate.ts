// `memeval calibrate`: grades the labelled calibration set with a summary
// judge and the labelled answers with the answer judge, prints agreement per
// criterion and the answer judge's false-accept/false-reject rates, and keeps
// the record that runs and gates look up (`.memeval/calibration/<judge-id>.json`).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { EXIT, InputError, fileProblem, isInputError } from '../../core/errors.js';
import type { Model } from '../../core/model.js';
import { createAnswerJudge } from '../../graders/answer-judge.js';
import {
  calibrate,
  calibrateAnswers,
  formatAnswerCalibrationTable,
  formatCalibrationTable,
  type AnswerCalibrationItem,
  type CalibrationItem,
  type CalibrationReport,
} from '../../graders/calibrate.js';
import { createSummaryJudge } from '../../graders/summary-judge.js';
import {
  CALIBRATION_WORD_LIMIT,
  DEFAULT_CALIBRATION_OUT,
  answerCalibrationDir,
  calibrationRecordPath,
  loadAnswerCalibrationSet,
  loadCalibrationSet,
} from '../datasets/calibration.js';
import { ModelSetupError, createModel } from '../models/create.js';
import { loadConfigOrDefault } from '../config.js';
import { writableDirProblem } from '../schema/files.js';
import { packagePath } from '../../core/package-root.js';

const DEFAULT_CALIBRATION_DATA = packagePath('datasets/calibration/');

export interface CalibrateDeps {
  /** Builds the judge model for a non-offline `--judge`. */
  makeModel?: (spec: string) => Model | Promise<Model>;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}


/**
 * `memeval calibrate [--judge MODEL] [--data DIR] [--out DIR] [--samples N]`.
 * `--samples` applies to the summary judge; the answer judge is called once per answer.
 * Exit 0 when every item was graded, 2 on bad input (flags or data), 3 when the
 * judge failed on any item (the report is still written, with the errors).
 */
export async function calibrateCommand(argv: string[], deps: CalibrateDeps = {}): Promise<number> {
  const out = deps.stdout ?? ((t: string) => process.stdout.write(t));
  const err = deps.stderr ?? ((t: string) => process.stderr.write(t));
  let flags: { judge?: string; data?: string; out?: string; samples?: string; config?: string };
  try {
    flags = parseArgs({
      args: argv,
      options: { judge: { type: 'string' }, data: { type: 'string' }, out: { type: 'string' }, samples: { type: 'string' }, config: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    err(`memeval calibrate: ${(e as Error).message}\n`);
    return EXIT.badInput;
  }
  const spec = flags.judge ?? 'offline';
  const samples = flags.samples === undefined ? 1 : Number(flags.samples);
  if (!Number.isInteger(samples) || samples < 1) {
    err(`memeval calibrate: --samples must be a whole number ≥ 1, not ${JSON.stringify(flags.samples)}\n`);
    return EXIT.badInput;
  }
  const data = resolve(flags.data ?? DEFAULT_CALIBRATION_DATA);
  let sets: { summaries: CalibrationItem[]; answers?: AnswerCalibrationItem[] };
  try {
    sets = loadSets(data);
  } catch (e) {
    if (!isInputError(e)) throw e;
    err(`${e.message}\n`);
    return EXIT.badInput;
  }
  const dir = resolve(flags.out ?? DEFAULT_CALIBRATION_OUT);
  // Checked before any judge call: a file in the way must not fail the command after its work.
  const blocked = writableDirProblem(dir);
  if (blocked) {
    err(`memeval calibrate: --out ${flags.out ?? DEFAULT_CALIBRATION_OUT} ${blocked}\n`);
    return EXIT.badInput;
  }
  const model = spec === 'offline' ? undefined : await buildModel(spec, deps, flags.config);
  const report: CalibrationReport = await calibrate(createSummaryJudge(spec, { wordLimit: CALIBRATION_WORD_LIMIT, samples }, model), sets.summaries);
  if (sets.answers) report.answers = await calibrateAnswers(createAnswerJudge(spec, model), sets.answers);
  const record = calibrationRecordPath(report.judge, dir);
  mkdirSync(join(dir, 'calibration'), { recursive: true });
  const json = `${JSON.stringify(report, null, 2)}\n`;
  writeFileSync(join(dir, 'calibration.json'), json);
  writeFileSync(record, json);
  out(`${calibrationText(report)}\nwrote ${join(dir, 'calibration.json')} and ${record}\n`);
  const errors = report.errors + (report.answers?.errors ?? 0);
  return errors > 0 ? EXIT.runFailed : EXIT.ok;
}

/** The summary set, and the labelled answers when the folder has an `answers/` folder (a custom `--data` may not). */
function loadSets(data: string): { summaries: CalibrationItem[]; answers?: AnswerCalibrationItem[] } {
  const summaries = loadCalibrationSet(data);
  const answersDir = answerCalibrationDir(data);
  return existsSync(answersDir) ? { summaries, answers: loadAnswerCalibrationSet(answersDir) } : { summaries };
}

function calibrationText(report: CalibrationReport): string {
  const answers = report.answers
    ? formatAnswerCalibrationTable(report.answers)
    : 'answer judge: not calibrated (no answers/ folder in the calibration data)';
  return `${formatCalibrationTable(report)}\n\n${answers}`;
}

/**
 * The judge as a run would build it: its provider from `--config FILE`, else ./memeval.config.yaml
 * (so the judge a run names, `fake:j` of its providers, is the judge calibrated), else only
 * `openai:<name>` (OPENAI_BASE_URL / OPENAI_API_KEY). Calls are cached like a run's.
 */
async function buildModel(spec: string, deps: CalibrateDeps, configFile: string | undefined): Promise<Model> {
  if (deps.makeModel) return deps.makeModel(spec);
  const config = loadConfigOrDefault(configFile);
  try {
    // `cache: false` in the config holds here too: a judge being calibrated is often being changed.
    const cacheDir = config.cache === false ? false : join(DEFAULT_CALIBRATION_OUT, 'cache');
    return createModel(spec, { providers: config.providers, prices: config.prices, cacheDir, limit: pLimit(4) });
  } catch (error) {
    // An unknown provider or a missing key is bad input, as it is for `memeval run`.
    if (error instanceof ModelSetupError) throw new InputError([fileProblem(config.file ?? 'memeval calibrate --judge', error.message)]);
    throw error;
  }
}
