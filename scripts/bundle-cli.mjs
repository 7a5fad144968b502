// Bundles the compiled CLI (dist/harness/cli.js and everything it imports,
// dependencies included) into dist/cli/, which bin/memeval.js runs.
//
// Why: Node 20 loads ES modules one file at a time (resolve, stat, read,
// compile, link). A run loads about 300 of them, openai's alone cost 150 ms,
// and on a short online run that start-up was a fifth of the whole process.
// A bundle makes it a few large files. Each command stays a chunk of its own,
// imported only when it runs, so `--help` and `--version` still load only the
// entry and its small helpers (test/bin.test.ts checks this).
//
// Run by `npm run build` after `tsc -b`, so it reads the JavaScript tsc wrote
// and chains its source maps: with MEMEVAL_DEBUG set, stack traces name the
// .ts sources.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');

// Old chunks have other hashes: clear them rather than leave a stale graph.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'dist', 'harness', 'cli.js')],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // tiktoken loads its WASM file from beside its own module, so it stays in node_modules.
  external: ['tiktoken'],
  // CommonJS dependencies call require() for Node's built-ins, which an ES module lacks.
  banner: { js: "import { createRequire as __memevalRequire } from 'node:module'; const require = __memevalRequire(import.meta.url);" },
  // Positions only: the sources are not shipped beside the bundle.
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
