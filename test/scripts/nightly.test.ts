import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleRun } from '../helpers/sample-run.js';
import { ensureBuild } from '../helpers/cli.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'nightly.sh');

// `memeval run` is replaced by a stub that drops a prepared run.json into a new
// run directory; diff and gate are the real CLI. This exercises the script's
// own logic: find the new run, diff and gate it, move last-good only on a pass.
const STUB = `#!/usr/bin/env bash
if [ "$1" = run ]; then
  out="$5"; id="$(date -u +%Y%m%dT%H%M%S%N)"
  mkdir -p "$out/$id" && cp "$NEXT_RUN" "$out/$id/run.json"
  exit 0
fi
exec node "${join(ROOT, 'bin', 'memeval.js')}" "$@"
`;

const CONFIG = `datasets: [none.yaml]
out: runs
baseline: full
strategies:
  - { id: full, use: full-history }
  - { id: trim-2, use: trimming, max_turns: 2 }
gates:
  - { metric: probe.accuracy, strategy: full, min: 0.85 }
`;

async function nightly(dir: string, nextRun: string): Promise<{ code: number; out: string }> {
  try {
    const r = await run('bash', [SCRIPT], { cwd: dir, env: { ...process.env, MEMEVAL: `bash ${join(dir, 'stub.sh')}`, NEXT_RUN: nextRun, GITHUB_STEP_SUMMARY: '' } });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, out: err.stdout + err.stderr };
  }
}

describe('scripts/nightly.sh', () => {
  // The script runs bin/memeval.js, which runs the build: make sure it is current.
  beforeAll(() => ensureBuild());
  const dir = mkdtempSync(join(tmpdir(), 'memeval-nightly-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('moves last-good forward on a passing gate and keeps it on a failing one', async () => {
    writeFileSync(join(dir, 'stub.sh'), STUB);
    writeFileSync(join(dir, 'memeval.config.yaml'), CONFIG);
    const good = join(dir, 'good.json');
    const bad = join(dir, 'bad.json');
    writeFileSync(good, JSON.stringify(sampleRun({ runId: 'good' })));
    const failing = sampleRun({ runId: 'bad', outcomes: { full: Array(10).fill('fail') } });
    writeFileSync(bad, JSON.stringify(failing));

    const first = await nightly(dir, good);
    expect(first.code, first.out).toBe(0);
    const firstTarget = readlinkSync(join(dir, 'runs', 'last-good'));
    expect(existsSync(join(dir, 'runs', firstTarget, 'gate.md'))).toBe(true);

    const second = await nightly(dir, bad);
    expect(second.code, second.out).toBe(100);
    expect(readlinkSync(join(dir, 'runs', 'last-good'))).toBe(firstTarget);
    expect(second.out).toContain('memeval diff');
  });
});
