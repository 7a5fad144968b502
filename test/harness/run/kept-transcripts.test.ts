// A run keeps the transcripts it checked, up to a size, rather than reading
// them again when their jobs start; past it, it reads them again. Both must
// give the same run.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../harness/config.js';
import { runSuite } from '../../../harness/run/run.js';
import { stableCsv, tinySuite } from '../../helpers/cli.js';

const quiet = (): void => undefined;

describe('transcripts kept from the check or read again', () => {
  const kept = tinySuite(3);
  const reread = tinySuite(3);
  afterAll(() => {
    kept.cleanup();
    reread.cleanup();
  });

  it('give the same records and reports', async () => {
    const a = await runSuite({ config: loadConfig(kept.path('memeval.config.yaml')), log: quiet });
    // Nothing kept: every transcript is read again from its file by its first job.
    const b = await runSuite({ config: loadConfig(reread.path('memeval.config.yaml')), keepCheckedChars: 0, log: quiet });
    expect(a.run.info.status).toBe('complete');
    expect(b.run.info.status).toBe('complete');
    expect(b.run.probes.length).toBeGreaterThan(0);
    for (const file of ['probes.csv', 'turns.csv', 'summaries.csv']) {
      expect(stableCsv(join(b.dir, file))).toEqual(stableCsv(join(a.dir, file)));
    }
  });

  it('reads a file again only when it did not keep it: a change after the check reaches only that run', async () => {
    const changeAfterCheck = (ws: typeof kept) => (line: string) => {
      // The first line is written once every transcript has been checked, before any job starts.
      if (line.startsWith('memeval:')) appendFileSync(ws.path('data/t1.yaml'), '# edited\n');
    };
    const keeping = tinySuite(2);
    const reading = tinySuite(2);
    try {
      const a = await runSuite({ config: loadConfig(keeping.path('memeval.config.yaml')), log: changeAfterCheck(keeping) });
      expect(a.run.info.status).toBe('complete');
      // Only t1's jobs stop, on the change; t2's finish, and the run is FAILED, saying which file and what to do.
      const b = await runSuite({ config: loadConfig(reading.path('memeval.config.yaml')), keepCheckedChars: 0, log: changeAfterCheck(reading) });
      expect(b.run.info.status).toBe('failed');
      expect(b.run.info.failure).toMatch(/^The job of strategy \S+ on transcript t1 stopped on its input: \S*t1\.yaml: changed while the run was using it, so a resumed run refuses it too \(and 2 more job\(s\): .*\)\. \d+ probe answers were not attempted\. Start a new run to use the files as they are now\.$/);
      expect(new Set(b.run.probes.map((p) => p.transcript))).toEqual(new Set(['t2']));
    } finally {
      keeping.cleanup();
      reading.cleanup();
    }
  });
});
