// The installed command and the importable package: bin/memeval.js runs the
// bundle in dist/cli/, starts without loading the commands or any dependency for
// --version and --help, and `memeval/strategies` works from another project.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP } from '../harness/help.js';
import { ensureBuild, CLI, REPO_ROOT } from './helpers/cli.js';

const execFileAsync = promisify(execFile);

/** The code block after "Using a strategy in production" in the README, verbatim. */
function readmeProductionSnippet(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const after = readme.split('Using a strategy in production')[1] ?? '';
  const block = /```ts\n([\s\S]*?)```/.exec(after);
  if (!block || !block[1].includes("from 'memeval/strategies'")) throw new Error("README: no production snippet importing 'memeval/strategies'");
  return block[1];
}

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node ...args` and returns its exit code and output, whatever the code. */
async function node(args: string[], cwd: string): Promise<Exit> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

let tmp: string;
beforeAll(() => {
  ensureBuild();
  tmp = mkdtempSync(join(tmpdir(), 'memeval-bin-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('bin/memeval.js', () => {
  it('says how to build when there is no dist/, and exits 2 instead of running the sources', async () => {
    // The same script in a package folder that was never built.
    const checkout = join(tmp, 'unbuilt');
    mkdirSync(join(checkout, 'bin'), { recursive: true });
    copyFileSync(CLI, join(checkout, 'bin', 'memeval.js'));
    const result = await node([join(checkout, 'bin', 'memeval.js'), '--version'], checkout);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/npm ci.*npm run build/);
  });

  // A resolve hook lists every file the process loads, and each bundle chunk
  // names the modules it holds in a path comment (`// dist/core/errors.js`), so
  // a heavy static import creeping into harness/cli.ts fails here rather than
  // only slowing starts.
  const HOOKS = `export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  process.stderr.write('LOADED ' + resolved.url + '\\n');
  return resolved;
}`;
  const REGISTER = `import { register } from 'node:module';
register('./hooks.mjs', import.meta.url);`;
  const REPO_URL = pathToFileURL(REPO_ROOT).href;
  const LOADED_FILE = /^(bin\/memeval\.js|dist\/cli\/[\w-]+\.js)$/;
  // The CLI, the usage text, the signal handlers and core's small leaf modules; never a command or a dependency.
  const STARTUP_MODULE = /^(dist\/harness\/(cli|help|signals)\.js|dist\/core\/[\w-]+\.js)$/;

  /** The modules a bundle file holds, from esbuild's path comments. */
  function bundledModules(file: string): string[] {
    return [...readFileSync(join(REPO_ROOT, file), 'utf8').matchAll(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm)].map((m) => m[1]);
  }

  async function startup(flag: string): Promise<{ result: Exit; files: string[]; modules: string[] }> {
    const hooks = join(tmp, 'hooks');
    mkdirSync(hooks, { recursive: true });
    writeFileSync(join(hooks, 'hooks.mjs'), HOOKS);
    writeFileSync(join(hooks, 'register.mjs'), REGISTER);
    const result = await node(['--import', pathToFileURL(join(hooks, 'register.mjs')).href, CLI, flag], tmp);
    const urls = result.stderr.split('\n').filter((l) => l.startsWith('LOADED ')).map((l) => l.slice('LOADED '.length));
    const loaded = urls.filter((url) => url.startsWith('file:') && !url.startsWith(pathToFileURL(hooks).href));
    const files = [...new Set(loaded.map((url) => (url.startsWith(`${REPO_URL}/`) ? url.slice(REPO_URL.length + 1) : url)))];
    const modules = files.filter((file) => file.startsWith('dist/cli/')).flatMap(bundledModules);
    return { result, files, modules };
  }

  it('ends quietly with exit 0 when the reader of its output goes away (`memeval strategies | head -1`)', async () => {
    const result = await execFileAsync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${CLI}" strategies | head -1 >/dev/null; echo "status \${PIPESTATUS[0]}"`], {
      cwd: REPO_ROOT,
    });
    expect(result.stdout.trim()).toBe('status 0');
    expect(result.stderr).not.toMatch(/EPIPE|at /);
  });

  // Each command ends with exit 0 and loads only files of the bundle (and bin/memeval.js).
  async function loadsFromBundle(arg: string): Promise<{ stdout: string; modules: string[] }> {
    const { result, files, modules } = await startup(arg);
    expect(result.code).toBe(0);
    expect(files.filter((file) => !LOADED_FILE.test(file))).toEqual([]);
    return { stdout: result.stdout, modules };
  }

  it.each([
    { flag: '--version', stdout: () => `${(JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`, module: 'dist/harness/cli.js' },
    { flag: '--help', stdout: () => `${HELP}\n`, module: 'dist/harness/help.js' },
  ])('prints $flag, loading only the CLI and core leaf modules', async ({ flag, stdout, module }) => {
    const { stdout: printed, modules } = await loadsFromBundle(flag);
    expect(printed).toBe(stdout());
    expect(modules).toContain(module);
    expect(modules.filter((path) => !STARTUP_MODULE.test(path))).toEqual([]);
  });

  it('runs a command from its own chunk of the bundle, loading nothing from outside it', async () => {
    const { modules } = await loadsFromBundle('strategies');
    expect(modules).toContain('dist/harness/commands/strategies.js');
  });
});

describe('memeval/strategies from another project', () => {
  let project: string;
  beforeAll(() => {
    // What `npm install memeval` leaves, minus the copy: the package under node_modules/.
    project = join(tmp, 'consumer');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(REPO_ROOT, join(project, 'node_modules', 'memeval'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  });

  it('builds a SummarizingStrategy whose offline summary replaces the older turns', async () => {
    writeFileSync(
      join(project, 'session.mjs'),
      `import { DEFAULT_SUMMARIZER, OfflineSummarizer, SummarizingStrategy } from 'memeval/strategies';
const user = (content) => ({ type: 'message', role: 'user', content });
const assistant = (text) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
const session = new SummarizingStrategy(2, 1, new OfflineSummarizer(DEFAULT_SUMMARIZER));
await session.addItems([user('My router model is RX-88812.'), assistant('Noted, RX-88812.')]);
await session.addItems([user('It drops Wi-Fi every hour.'), assistant('Try firmware 2.1.')]);
await session.addItems([user('Firmware 2.1 did not help.'), assistant('Then a factory reset.')]);
console.log(JSON.stringify(await session.getItems()));
`,
    );
    const result = await node(['session.mjs'], project);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const items = JSON.parse(result.stdout) as { role: string; content: string | { text: string }[] }[];
    const text = (i: number): string => {
      const content = items[i].content;
      return typeof content === 'string' ? content : content.map((part) => part.text).join('');
    };
    // The shadow prompt and the summary (which read the cookbook prompt from the package), then the last turn verbatim.
    expect(items.map((item) => item.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(text(0)).toBe('Summarize the conversation we had so far.');
    expect(text(1)).toContain('RX-88812');
    expect(text(2)).toBe('Firmware 2.1 did not help.');
  });

  it("type-checks the README's production snippet against the declarations the package exports", async () => {
    // The snippet also imports @openai/agents, which a real project installs beside memeval.
    symlinkSync(join(REPO_ROOT, 'node_modules', '@openai'), join(project, 'node_modules', '@openai'), 'dir');
    writeFileSync(join(project, 'snippet.ts'), readmeProductionSnippet());
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] },
        files: ['snippet.ts'],
      }),
    );
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await node([tsc, '-p', project], project);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
