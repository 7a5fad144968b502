// When the `openai` package is loaded: as soon as a model whose calls all go out is built
// (a run waits for it before its first job), and never by commands that make no calls.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuild, onlyRunDir, REPO_ROOT, runCli, suiteConfig, tinySuite, type Workspace } from '../../helpers/cli.js';

// A loader hook that notes every file the process imports in the file MEMEVAL_TEST_OPENAI_MARK names.
const HOOK = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.MEMEVAL_TEST_OPENAI_MARK, resolved.url + '\\n');
  return resolved;
}`;
const REGISTER = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOK)}`)});`;
const IMPORT_HOOK = `data:text/javascript,${encodeURIComponent(REGISTER)}`;

/**
 * Whether a loaded file is, or holds, the openai package: the CLI runs the
 * bundle in dist/cli/, whose chunks name the modules they hold in path
 * comments (`// node_modules/openai/client.mjs`).
 */
function holdsOpenAI(url: string): boolean {
  if (!url.startsWith('file:')) return false;
  const path = fileURLToPath(url);
  if (path.includes(`${sep}node_modules${sep}openai${sep}`)) return true;
  return path.startsWith(join(REPO_ROOT, 'dist', 'cli') + sep) && /^\/\/ node_modules\/openai\//m.test(readFileSync(path, 'utf8'));
}

/** Whether the process loaded the openai package; `ok` lists the exit codes that mean it ran to its end. */
function loadsOpenAI(ws: Workspace, args: string[], ok: number[] = [0]): boolean {
  const mark = ws.path('openai.mark');
  rmSync(mark, { force: true });
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', CI: 'true', FAKE_API_KEY: 'sk-test-0123456789', MEMEVAL_TEST_OPENAI_MARK: mark };
  const result = spawnSync(process.execPath, ['--import', IMPORT_HOOK, ...args], { cwd: ws.dir, env, encoding: 'utf8' });
  // A command that failed early would load nothing and pass for the wrong reason.
  expect(ok, result.stderr).toContain(result.status);
  const loaded = existsSync(mark) ? readFileSync(mark, 'utf8').split('\n') : [];
  // A hook that saw nothing would pass every "never" for the wrong reason.
  expect(loaded.length).toBeGreaterThan(1);
  return loaded.some(holdsOpenAI);
}

/** A script that builds a remote model with the given cache setting, makes no call, and waits a moment. */
function buildModelScript(cacheDir: string | false): string[] {
  const create = pathToFileURL(join(REPO_ROOT, 'dist', 'harness', 'models', 'create.js')).href;
  const limit = pathToFileURL(join(REPO_ROOT, 'node_modules', 'p-limit', 'index.js')).href;
  const source = `const { createModel } = await import(${JSON.stringify(create)});
const { default: pLimit } = await import(${JSON.stringify(limit)});
createModel('fake:tiny', { providers: { fake: { base_url: 'http://127.0.0.1:9/v1', api_key_env: 'FAKE_API_KEY' } }, prices: {}, cacheDir: ${JSON.stringify(cacheDir)}, limit: pLimit(1) });
await new Promise((resolve) => setTimeout(resolve, 1000));`;
  return ['--input-type=module', '-e', source];
}

describe('loading the openai package', () => {
  let ws: Workspace;
  let runDir: string;

  beforeAll(async () => {
    ensureBuild();
    ws = tinySuite(1);
    const run = await runCli(['run', '--out', 'out'], { cwd: ws.dir });
    expect(run.code, run.stderr).toBe(0);
    runDir = onlyRunDir(ws.path('out'));
    // Later commands read a config that names a remote model with the cache off.
    ws.write('remote.yaml', `${suiteConfig({ baseURL: 'http://127.0.0.1:9/v1', cache: false })}gates:\n  - { metric: probe.accuracy, strategy: full, min: 0 }\n`);
  }, 60_000);

  afterAll(() => ws.cleanup());

  it('starts as soon as a model is built whose calls all go out, before any call', () => {
    expect(loadsOpenAI(ws, buildModelScript(false))).toBe(true);
  });

  it('waits for a call when a cache may answer every one', () => {
    expect(loadsOpenAI(ws, buildModelScript(ws.path('cache')))).toBe(false);
  });

  it('never happens for --help, report or gate', () => {
    expect(loadsOpenAI(ws, [CLI, '--help'])).toBe(false);
    expect(loadsOpenAI(ws, [CLI, 'report', runDir])).toBe(false);
    expect(loadsOpenAI(ws, [CLI, 'gate', runDir, '--config', 'remote.yaml'])).toBe(false);
  });

  it('happens for a run of the CLI that calls a remote model', () => {
    // The endpoint refuses connections: the run fails (exit 3), after loading the client.
    expect(loadsOpenAI(ws, [CLI, 'run', '--config', 'remote.yaml', '--out', 'remote-out'], [3])).toBe(true);
  });
});
