// Labels a run so it can be reproduced: versions, git sha, resolved config.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { calibrationRecordPath, DEFAULT_CALIBRATION_OUT, type CalibrationReport } from '../graders/calibrate.js';
import type { SuiteConfig, StrategyConfig } from './config.js';
import type { JudgeCalibration, RunInfo, Transcript } from './types.js';

const PACKAGES = ['openai', '@openai/agents', 'tiktoken', 'yaml', 'p-limit', 'csv-stringify'];

function packageVersion(name: string): string {
  try {
    const url = new URL(`../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function memevalVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function gitSha(cwd: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return undefined;
  }
}

/** The calibration on record for this judge, so every run says how far its judge can be trusted. */
export function judgeCalibration(judge: string, baseDir: string): JudgeCalibration | undefined {
  const file = calibrationRecordPath(judge, join(baseDir, DEFAULT_CALIBRATION_OUT));
  if (!existsSync(file)) return undefined;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8')) as CalibrationReport;
    const criteria = report.criteria.map(({ criterion, accuracy, kappa, ci }) => ({ criterion, accuracy, kappa, ci }));
    return { createdAt: report.createdAt, items: report.items, criteria };
  } catch {
    return undefined;
  }
}

/** UTC timestamp plus a short hash of the config, e.g. `20261122T103000Z-3f9a1c`. */
export function newRunId(config: SuiteConfig, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const hash = createHash('sha256').update(JSON.stringify(config)).update(String(now.getTime())).digest('hex');
  return `${stamp}-${hash.slice(0, 6)}`;
}

export function runInfo(
  runId: string,
  config: SuiteConfig,
  strategies: StrategyConfig[],
  transcripts: Transcript[],
  labels: { model: string; judge: string },
): RunInfo {
  return {
    runId,
    status: 'running',
    startedAt: new Date().toISOString(),
    memevalVersion: memevalVersion(),
    node: process.version,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, packageVersion(p)])),
    gitSha: gitSha(config.baseDir),
    model: labels.model,
    judge: labels.judge,
    judgeCalibration: judgeCalibration(labels.judge, config.baseDir),
    repeat: config.repeat,
    baseline: config.baseline,
    configFile: config.file,
    config: { ...config } as unknown as Record<string, unknown>,
    strategies: strategies.map((s) => ({ id: s.id, use: s.use, options: { ...s.options } })),
    transcripts: transcripts.map((t) => ({
      id: t.id,
      file: t.file,
      title: t.title,
      tags: t.tags,
      turns: t.turns.length,
      probes: t.probes.length,
    })),
  };
}
