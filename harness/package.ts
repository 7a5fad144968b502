// Files shipped with memeval (package.json, bundled datasets, node_modules),
// found from this module whether it runs from the sources or from the build.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'memeval') return dir;
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
