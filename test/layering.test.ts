import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const CONFIG = '.dependency-cruiser.cjs';

interface Violation {
  rule: string;
  from: string;
  to: string;
}

// Runs the config found in `root` over `folders` of `root`, the way `npm run lint:deps` does
// from the repository root.
async function cruiseWithConfig(root: string, folders: string[]): Promise<ICruiseResult> {
  const tsConfigFile = join(root, 'tsconfig.json');
  const options = await extractDepcruiseOptions(join(root, CONFIG));
  const reported = await cruise(
    folders,
    { ...options, baseDir: root, tsConfig: { fileName: tsConfigFile } },
    {},
    { tsConfig: extractTSConfig(tsConfigFile) },
  );
  return reported.output as ICruiseResult;
}

async function violations(root: string, folders: string[]): Promise<Violation[]> {
  const result = await cruiseWithConfig(root, folders);
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

// The folders `lint:deps` names, so this test checks exactly what the script checks.
function lintedFolders(): string[] {
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = manifest.scripts['lint:deps'].split(/\s+/);
  const args = words.slice(words.indexOf('depcruise') + 1);
  return args.slice(0, args.findIndex((word) => word.startsWith('--')));
}

// The smallest tree in which every layer uses the layer it may use, type-only imports included.
const CLEAN_TREE: Record<string, string> = {
  'core/types.ts': 'export type Id = string;\n',
  'core/ids.ts': "import type { Id } from './types.js';\nexport const toId = (raw: string): Id => raw.trim();\n",
  'strategies/keep.ts': "import { toId } from '../core/ids.js';\nexport const keep = toId('keep');\n",
  'graders/exact.ts': "import type { Id } from '../core/types.js';\nexport const same = (a: Id, b: Id): boolean => a === b;\n",
  'reports/table.ts': "import { toId } from '../core/ids.js';\nexport const header = toId('id');\n",
  'harness/run.ts': [
    "import { toId } from '../core/ids.js';",
    "import { keep } from '../strategies/keep.js';",
    "import { same } from '../graders/exact.js';",
    "import { header } from '../reports/table.js';",
    'export const run = (): boolean => same(toId(keep), header);',
    '',
  ].join('\n'),
  'scripts/bench.ts': "import { run } from '../harness/run.js';\nrun();\n",
};
const FIXTURE_FOLDERS = ['core', 'strategies', 'graders', 'reports', 'harness', 'scripts'];

const roots: string[] = [];

function fixture(extra: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'memeval-layering-'));
  roots.push(root);
  copyFileSync(join(REPO, CONFIG), join(root, CONFIG));
  copyFileSync(join(REPO, 'tsconfig.json'), join(root, 'tsconfig.json'));
  for (const [file, text] of Object.entries({ ...CLEAN_TREE, ...extra })) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('layering rules', () => {
  it('pass a tree that keeps the layers, after really reading its imports', async () => {
    const result = await cruiseWithConfig(fixture(), FIXTURE_FOLDERS);
    expect(result.summary.violations).toEqual([]);
    // A cruise that parsed nothing would also report nothing: prove the edges were seen,
    // the type-only one included.
    const modules = result.modules;
    const ids = modules.find((m) => m.source === 'core/ids.ts');
    expect(ids?.dependencies.map((d) => d.resolved)).toEqual(['core/types.ts']);
    expect(modules.find((m) => m.source === 'harness/run.ts')?.dependencies).toHaveLength(4);
  });

  const planted: { what: string; files: Record<string, string>; rule: string; from: string; to: string }[] = [
    {
      what: 'strategies importing harness',
      files: {
        'harness/y.ts': 'export const y = 1;\n',
        'strategies/x.ts': "import { y } from '../harness/y.js';\nexport const x = y;\n",
      },
      rule: 'strategies-imports-only-core',
      from: 'strategies/x.ts',
      to: 'harness/y.ts',
    },
    {
      what: 'reports importing graders',
      files: {
        'graders/b.ts': 'export const b = 1;\n',
        'reports/a.ts': "import { b } from '../graders/b.js';\nexport const a = b;\n",
      },
      rule: 'reports-imports-only-core',
      from: 'reports/a.ts',
      to: 'graders/b.ts',
    },
    {
      what: 'graders importing strategies',
      files: { 'graders/c.ts': "import { keep } from '../strategies/keep.js';\nexport const c = keep;\n" },
      rule: 'graders-imports-only-core',
      from: 'graders/c.ts',
      to: 'strategies/keep.ts',
    },
    {
      what: 'a cycle made only of type imports',
      files: {
        'core/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
        'core/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
      },
      rule: 'no-cycles',
      from: 'core/a.ts',
      to: 'core/b.ts',
    },
    {
      what: 'core importing harness',
      files: {
        'harness/z.ts': 'export const z = 1;\n',
        'core/a.ts': "import { z } from '../harness/z.js';\nexport const a = z;\n",
      },
      rule: 'core-imports-only-core',
      from: 'core/a.ts',
      to: 'harness/z.ts',
    },
    {
      what: 'harness importing scripts',
      files: { 'harness/tool.ts': "import '../scripts/bench.js';\nexport const tool = 1;\n" },
      rule: 'production-not-to-scripts-or-test',
      from: 'harness/tool.ts',
      to: 'scripts/bench.ts',
    },
    {
      what: 'a relative import of a file that does not exist',
      files: { 'core/gone.ts': "import { moved } from './moved.js';\nexport const gone = moved;\n" },
      rule: 'not-to-unresolvable',
      from: 'core/gone.ts',
      to: './moved.js',
    },
  ];

  it.each(planted)('fail on $what, naming the rule', async ({ files, rule, from, to }) => {
    const found = await violations(fixture(files), FIXTURE_FOLDERS);
    expect(found).toContainEqual({ rule, from, to });
    expect(new Set(found.map((v) => v.rule))).toEqual(new Set([rule]));
  });
});

// One line per violation, a cycle spelled out in full, so a failure reads like `npm run lint:deps`.
function describeViolation(v: ICruiseResult['summary']['violations'][number]): string {
  const chain = v.cycle ? [v.from, ...v.cycle.map((step) => step.name)] : [v.from, v.to];
  return `${v.rule.name}: ${chain.join(' → ')}`;
}

describe('the repository', () => {
  it('keeps its layers and has no import cycles', async () => {
    const folders = lintedFolders();
    expect(folders).toEqual(expect.arrayContaining(['core', 'strategies', 'graders', 'reports', 'harness', 'scripts', 'bin', 'test']));
    const result = await cruiseWithConfig(REPO, folders);
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
  });
});
