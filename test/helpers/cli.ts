// Spawns the real `memeval` command line on a temporary suite, for tests that
// must see what a user sees: exit codes, stdout/stderr, files left on disk.
// The command runs the bundled build in dist/cli/, which is rebuilt first when
// a source is newer (`npm test` builds before the tests, so there it never is).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { apiError, lastUserText, responsesBody, startFakeOpenAI, type FakeServer } from '../../scripts/lib/fake-openai.js';
import { loadRun } from '../../reports/load.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(REPO_ROOT, 'bin', 'memeval.js');

/** What `tsc -b tsconfig.build.json` compiles, and the file it rewrites (or touches) on every build. */
const BUILT_DIRS = ['core', 'harness', 'strategies', 'graders', 'reports'];
const BUILD_CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
/** Written last by a build: the bundle of the compiled CLI. */
const BUNDLE_ENTRY = join(REPO_ROOT, 'dist', 'cli', 'cli.js');
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const BUNDLER = join(REPO_ROOT, 'scripts', 'bundle-cli.mjs');
const RANK_TABLE = join(REPO_ROOT, 'dist', 'o200k-ranks.bin');

/**
 * The steps of package.json's `build` script (`tsc -b …`, `node scripts/….mjs`), so a
 * test's rebuild is the same build as `npm run build` and cannot fall behind it.
 */
function buildSteps(): string[][] {
  const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } };
  return scripts.build.split('&&').map((step) => {
    const [command, ...args] = step.trim().split(/\s+/);
    if (command === 'tsc') return [TSC, ...args];
    if (command === 'node') return args;
    throw new Error(`package.json build step "${step.trim()}" is neither tsc nor node`);
  });
}

/** Newest modification time among the build's inputs (sources and tsconfigs). */
function newestBuildInput(): number {
  const sources = BUILT_DIRS.flatMap((dir) => filesUnder(join(REPO_ROOT, dir))).filter((path) => path.endsWith('.ts'));
  const inputs = [...sources, ...BUILD_CONFIGS.map((name) => join(REPO_ROOT, name))];
  return Math.max(...inputs.map((path) => statSync(path).mtimeMs));
}

/** True when the bundle is missing or a source changed after the last build. */
function buildIsStale(): boolean {
  try {
    if (!existsSync(RANK_TABLE)) return true;
    return Math.max(newestBuildInput(), statSync(BUNDLER).mtimeMs) > statSync(BUNDLE_ENTRY).mtimeMs;
  } catch {
    return true;
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Claims the build for this process; false when another one holds it. */
function takeBuildLock(lock: string): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** Whether the process holding the lock is still running (a holder still writing its pid counts as running). */
function holderRunning(lock: string): boolean {
  const pid = Number(readFileSync(lock, 'utf8'));
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits for another process's build, which is this one's too; false when that process died mid-build. */
function waitForBuild(lock: string): boolean {
  for (;;) {
    try {
      if (!holderRunning(lock)) {
        rmSync(lock, { force: true });
        return false;
      }
    } catch {
      return true; // the lock is gone: the build finished
    }
    sleepSync(100);
  }
}

/**
 * Runs the build once across the test processes: vitest runs
 * files in parallel, and a second build rewriting the same files could let a
 * CLI read a half-written one.
 */
function buildOnce(): void {
  const lock = join(tmpdir(), `memeval-build-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`);
  for (;;) {
    if (takeBuildLock(lock)) break;
    if (waitForBuild(lock)) return;
  }
  try {
    for (const step of buildSteps()) {
      try {
        execFileSync(process.execPath, step, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
      } catch (error) {
        // Type errors: tsc still wrote the JavaScript (noEmitOnError is off), and the type check reports them.
        if (step[0] !== TSC) throw error;
      }
    }
  } finally {
    rmSync(lock, { force: true });
  }
}

let buildChecked = false;

/**
 * The CLI runs the bundle in dist/cli/; after a source edit that build is older
 * than the code under test, so it is rebuilt first (once per test process).
 */
export function ensureBuild(): void {
  if (buildChecked) return;
  if (buildIsStale()) buildOnce();
  buildChecked = true;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliProcess {
  child: ChildProcess;
  /** Resolves when the process has exited and its output is closed. */
  done: Promise<CliResult>;
}

export interface CliOptions {
  cwd: string;
  /** Added to a minimal environment (PATH, HOME); the parent's OPENAI_* never leak in. */
  env?: Record<string, string>;
}

function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', CI: 'true' };
  return { ...env, ...extra };
}

/** Starts `node bin/memeval.js ...args`; the caller may signal `child` before `done` settles. */
export function spawnCli(args: string[], opts: CliOptions): CliProcess {
  ensureBuild();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: childEnv(opts.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolveDone, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolveDone({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  return spawnCli(args, opts).done;
}

/** A temporary directory holding a suite; files are given relative to it. */
export class Workspace {
  readonly dir: string;

  constructor(files: Record<string, string> = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'memeval-cli-'));
    for (const [rel, text] of Object.entries(files)) this.write(rel, text);
  }

  path(rel: string): string {
    return join(this.dir, rel);
  }

  write(rel: string, text: string | Buffer): string {
    const path = this.path(rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return path;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Workspaces for the tests of one file: each call makes a new one, and each is removed after its test. */
export function tempWorkspaces(): () => Workspace {
  const made: Workspace[] = [];
  afterEach(() => {
    for (const ws of made.splice(0)) ws.cleanup();
  });
  return () => {
    const ws = new Workspace();
    made.push(ws);
    return ws;
  };
}

/** Every regular file under `dir`, recursively (absolute paths). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}

/** The single run directory a `run --out OUT` left (runs are `OUT/<run-id>/`). */
export function onlyRunDir(out: string): string {
  const dirs = readdirSync(out).filter((n) => statSync(join(out, n)).isDirectory());
  if (dirs.length !== 1) throw new Error(`expected one run directory under ${out}, found ${dirs.length}`);
  return join(out, dirs[0]);
}

/** Polls until `test()` is true; rejects after `limitMs` so a broken run cannot hang a test. */
export async function waitFor(test: () => boolean, limitMs = 30_000, everyMs = 10): Promise<void> {
  const until = Date.now() + limitMs;
  while (!test()) {
    if (Date.now() > until) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Number of whole lines in a file (0 when it does not exist yet). */
export function lineCount(path: string): number {
  try {
    const text = readFileSync(path, 'utf8');
    return text.split('\n').length - 1;
  } catch {
    return 0;
  }
}

/**
 * A second link, at `to`, to a run directory's journal: a complete run
 * without errors removes its journal.jsonl, and the link keeps every line the
 * run appended (the journal is only ever appended to, never replaced).
 */
export function linkJournal(runDir: string, to: string): string {
  linkSync(join(runDir, 'journal.jsonl'), to);
  return to;
}

/**
 * A run's `log` that links its journal to `to` (linkJournal) as the run
 * starts: the first line names the run directory, and the journal is open by then.
 */
export function journalKeepingLog(to: string): (line: string) => void {
  return (line) => {
    const dir = / → (.+)$/.exec(line)?.[1];
    if (dir && !existsSync(to)) linkJournal(dir, to);
  };
}

/** Lines of stderr that look like a JavaScript stack frame. */
export function stackLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\s{4}at\s/.test(l));
}

/** A five-turn transcript with two facts and two probes (after turns 4 and 5). */
export function tinyTranscript(id: string, extraUserText = ''): string {
  return `id: ${id}
title: Tiny ${id}
system: You help with ${id}.
turns:
  - user: ${JSON.stringify(`Hello, my account number for ${id} is ACC-${id.length}7731.${extraUserText ? ` ${extraUserText}` : ''}`)}
    assistant: Thanks, noted your account.
  - user: The device for ${id} is a blue router model R${id.length}00.
    assistant: Got it, a blue router.
  - user: It restarts every hour since Monday.
    assistant: Let us check the power supply.
  - user: The power supply is fine, I swapped it.
    assistant: Then we try a firmware update.
  - user: The update to version 9 finished.
    assistant: Good, watch it for a day.
facts:
  - id: account
    text: ACC-${id.length}7731
    turn: 1
    critical: true
  - id: colour
    text: blue router
    turn: 2
probes:
  - id: account-q
    after_turn: 4
    question: What is the account number for ${id}?
    answer: ACC-${id.length}7731
    must_include: [ACC-${id.length}7731]
    facts: [account]
  - id: colour-q
    after_turn: 5
    question: What colour is the router in ${id}?
    answer: blue
    must_include: [blue]
    facts: [colour]
`;
}

export interface SuiteConfigOptions {
  /** Base URL of a fake server; omitted → the offline model. */
  baseURL?: string;
  keyEnv?: string;
  cache?: string | false;
  concurrency?: number;
  timeoutMs?: number;
  maxAttempts?: number;
}

/** Three strategies whose views differ at every probe, so every model request is distinct. */
export function suiteConfig(opts: SuiteConfigOptions = {}): string {
  const provider = opts.baseURL
    ? `providers:
  fake:
    base_url: ${opts.baseURL}
    api_key_env: ${opts.keyEnv ?? 'FAKE_API_KEY'}
    timeout_ms: ${opts.timeoutMs ?? 10000}
    max_attempts: ${opts.maxAttempts ?? 2}
`
    : '';
  return `datasets: [data/*.yaml]
out: runs
model: ${opts.baseURL ? 'fake:tiny-model' : 'offline'}
judge: offline
concurrency: ${opts.concurrency ?? 2}
repeat: 1
cache: ${opts.cache === undefined ? 'false' : opts.cache === false ? 'false' : opts.cache}
baseline: full
${provider}strategies:
  - id: full
    use: full-history
  - id: trim-1
    use: trimming
    max_turns: 1
  - id: sum-3-1
    use: summarizing
    context_limit: 3
    keep_last_n_turns: 1
    summarizer:
      model: offline
`;
}

/**
 * Full history beside a summarizing strategy whose summarizer is an API model,
 * on a local provider: every answer depends on the summaries before it (what
 * `--batch` rounds must respect). `head` holds the top-level lines that differ.
 */
export function summarizingSuiteConfig(opts: { baseURL: string; keyEnv: string; head: string; summarizer: string }): string {
  return `datasets: [data/*.yaml]
out: runs
${opts.head}
providers:
  local: { base_url: "${opts.baseURL}", api_key_env: ${opts.keyEnv} }
strategies:
  - { id: full, use: full-history }
  - id: sum-2-1
    use: summarizing
    context_limit: 2
    keep_last_n_turns: 1
    summarizer: { model: "${opts.summarizer}", max_tokens: 200 }
`;
}

/** A workspace with `count` tiny transcripts and a config. */
export function tinySuite(count: number, config: SuiteConfigOptions = {}, extraUserText = ''): Workspace {
  const files: Record<string, string> = { 'memeval.config.yaml': suiteConfig(config) };
  for (let i = 1; i <= count; i++) files[`data/t${i}.yaml`] = tinyTranscript(`t${i}`, extraUserText);
  return new Workspace(files);
}

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, newlines inside quotes). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else if (ch !== '\r') field += ch;
  }
  if (field || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

// Timing and cache provenance legitimately differ between two runs of the same work.
const VOLATILE = /latency|^cached$|duration/i;

/** A CSV with volatile columns removed, as header + rows, for equality checks. */
export function stableCsv(path: string): string[][] {
  const [header, ...rows] = parseCsv(readFileSync(path, 'utf8'));
  const keep = header.map((h, i) => (VOLATILE.test(h) ? -1 : i)).filter((i) => i >= 0);
  return [keep.map((i) => header[i]), ...rows.map((r) => keep.map((i) => r[i]))];
}

function dropVolatile(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropVolatile);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!VOLATILE.test(k)) out[k] = dropVolatile(v);
    return out;
  }
  return value;
}

/** The records of a run.json (turns, probes, summaries) as a report reads them, without volatile fields. */
export function stableRecords(runDir: string): unknown {
  const run = loadRun(runDir);
  return dropVolatile({ turns: run.turns, probes: run.probes, summaries: run.summaries });
}

/**
 * A local server that answers with the context it was sent, as a model quoting
 * its notes would, and refuses (400) every question holding the text last given
 * to `refuse` (none: refuse nothing).
 */
export async function quotingServer(): Promise<{ server: FakeServer; refuse: (question: string | undefined) => void }> {
  let refused: string | undefined;
  const server = await startFakeOpenAI((req) =>
    refused !== undefined && lastUserText(req.body).includes(refused)
      ? apiError(400, 'refused for the test')
      : { json: responsesBody(`From the notes: ${contextText(req.body)}`) },
  );
  return { server, refuse: (question) => (refused = question) };
}

/** Text of every item of a Responses API body, joined: an answer that depends only on the context sent. */
export function contextText(body: Record<string, unknown>): string {
  const input = Array.isArray(body.input) ? (body.input as Record<string, unknown>[]) : [];
  return input
    .map((item) => (typeof item.content === 'string' ? item.content : ''))
    .filter(Boolean)
    .join(' | ');
}
