// A damaged cache entry is detected and refetched; intact entries are reused.
import { readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeOpenAI, responsesBody, type FakeServer } from '../../../scripts/lib/fake-openai.js';
import { contextText, filesUnder, runCli, stableCsv, tinySuite, type Workspace } from '../../helpers/cli.js';

const ENV = { FAKE_API_KEY: 'local-test-key-123456' };
const PROBES = 2 * 3 * 2;

let server: FakeServer;
let ws: Workspace;

beforeAll(async () => {
  server = await startFakeOpenAI((req) => ({ json: responsesBody(`From the notes: ${contextText(req.body)}`) }));
  ws = tinySuite(2, { baseURL: server.baseURL, cache: '.cache' });
});

afterAll(async () => {
  await server.close();
  ws.cleanup();
});

async function run(out: string): Promise<string> {
  const result = await runCli(['run', '--out', out], { cwd: ws.dir, env: ENV });
  expect(result.stderr).not.toMatch(/^\s{4}at\s/m);
  expect(result.code).toBe(0);
  const [id] = readdirSync(ws.path(out));
  return join(ws.path(out), id);
}

it('refetches exactly the damaged entries and reuses the rest', async () => {
  const cold = await run('cold');
  expect(server.requests).toHaveLength(PROBES);
  const entries = filesUnder(ws.path('.cache')).sort();
  expect(entries).toHaveLength(PROBES);

  // One entry cut short (a crash mid-copy), one with a flipped answer (bit rot).
  truncateSync(entries[0], Math.floor(readFileSync(entries[0]).length / 2));
  const tampered = JSON.parse(readFileSync(entries[1], 'utf8')) as { result: { output: string } };
  tampered.result.output = `${tampered.result.output} (edited)`;
  writeFileSync(entries[1], JSON.stringify(tampered));

  const repaired = await run('repaired');
  expect(server.requests).toHaveLength(PROBES + 2);
  for (const file of entries.slice(0, 2)) expect(() => JSON.parse(readFileSync(file, 'utf8'))).not.toThrow();
  for (const file of ['probes.csv', 'summary.csv', 'turns.csv']) expect(stableCsv(join(repaired, file)), file).toEqual(stableCsv(join(cold, file)));

  await run('warm');
  expect(server.requests).toHaveLength(PROBES + 2);
});
