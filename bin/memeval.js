#!/usr/bin/env node
// Runs the bundled build in dist/cli/ (made by `npm ci` or `npm run build`):
// starting from JavaScript keeps `memeval --version` and `--help` instant,
// where transpiling the sources on every start cost seconds, and a bundle
// loads a run's few hundred modules as a few files (scripts/bundle-cli.mjs).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli/cli.js', import.meta.url);

// A checkout that was never installed has no build; say how to make one
// rather than run sources that may not match what was built.
if (!existsSync(cli)) {
  process.stderr.write('memeval: no build in dist/ — run `npm ci` or `npm run build` first.\n');
  process.exit(2);
}
// Only a debug stack trace is worth the cost of mapping it back to the .ts sources.
if (process.env.MEMEVAL_DEBUG) process.setSourceMapsEnabled(true);

// `memeval strategies | head` closes the pipe early: that ends the output, it is not a crash.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const { main } = await import(cli.href);
const code = await main(process.argv.slice(2));
process.exitCode = code;
// A run stopped by SIGINT (130) or SIGTERM (143) wrote what is finished and
// no longer waits for the calls it abandoned in flight.
if (code === 130 || code === 143) process.exit(code);
