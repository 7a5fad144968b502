// The bare-client baseline of `npm run bench` (online section): the least a
// program can do to send the same requests memeval sent — an `openai` client
// and a `p-limit` loop, nothing else. Plain JavaScript run with plain `node`
// (no tsx), so its start-up is as cheap as memeval's built CLI.
//
//   node scripts/lib/bench-bare-client.mjs BODIES.json CONCURRENCY BASE_URL KEY_ENV
//
// BODIES.json is a JSON array of Responses API request bodies. The key is read
// from the environment variable KEY_ENV and never printed. Prints one JSON line:
// { requests, failed, requestMs } where requestMs is the request phase only.
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import pLimit from 'p-limit';

const [bodiesFile, concurrencyArg, baseURL, keyEnv] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
if (!bodiesFile || !baseURL || !keyEnv || !(concurrency >= 1)) {
  process.stderr.write('usage: node bench-bare-client.mjs BODIES.json CONCURRENCY BASE_URL KEY_ENV\n');
  process.exit(2);
}
const apiKey = process.env[keyEnv];
if (!apiKey) {
  process.stderr.write(`${keyEnv} is not set\n`);
  process.exit(2);
}

const bodies = JSON.parse(readFileSync(bodiesFile, 'utf8'));
// The same client settings memeval uses: no SDK retries (none are needed against a local server).
const client = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
const limit = pLimit(concurrency);

let failed = 0;
const started = performance.now();
await Promise.all(
  bodies.map((body) =>
    limit(async () => {
      try {
        await client.responses.create(body);
      } catch {
        failed++;
      }
    }),
  ),
);
const requestMs = performance.now() - started;
process.stdout.write(`${JSON.stringify({ requests: bodies.length, failed, requestMs })}\n`);
