// Files shipped with memeval (package.json, prompts, bundled datasets,
// node_modules) are found from the package's own folder: the sources run from
// `<root>/core/` and the build from `<root>/dist/core/`, so a path relative to
// this module would differ between the two, while the root does not.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function isMemevalManifest(path: string): boolean {
  if (!existsSync(path)) return false;
  return (JSON.parse(readFileSync(path, 'utf8')) as { name?: string }).name === 'memeval';
}

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (isMemevalManifest(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('memeval: cannot find its own package.json');
    dir = parent;
  }
}

let root: string | undefined;

/** The memeval package's own folder. */
export function packageRoot(): string {
  root ??= findRoot();
  return root;
}

/** A path inside the memeval package (`datasets/calibration/`, `package.json`, …). */
export function packagePath(rel: string): string {
  return join(packageRoot(), rel);
}

/** memeval's version, from its own package.json. */
export function memevalVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}
