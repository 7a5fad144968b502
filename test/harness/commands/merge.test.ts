// The command line of sharded runs: `run --shard i/n` on each machine, then
// `merge`, whose exit code is the merged run's verdict; a gate never judges a shard.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onlyRunDir, runCli, tinySuite } from '../../helpers/cli.js';

describe('memeval run --shard and memeval merge', () => {
  it('runs two shards on their own, merges them, and gates only the merged run', async () => {
    const ws = tinySuite(2);
    ws.write('memeval.config.yaml', `${readFileSync(ws.path('memeval.config.yaml'), 'utf8')}gates:\n  - { metric: probe.accuracy, strategy: full, min: 0 }\n`);
    try {
      const first = await runCli(['run', '--shard', '1/2', '--out', 'shard-1'], { cwd: ws.dir });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(/SHARD: shard 1 of 2/);
      expect(first.stdout).toMatch(/once every shard is done: memeval merge/);
      const second = await runCli(['run', '--shard', '2/2', '--out', 'shard-2'], { cwd: ws.dir });
      expect(second.code, second.stderr).toBe(0);
      const shards = [onlyRunDir(ws.path('shard-1')), onlyRunDir(ws.path('shard-2'))];

      const gateShard = await runCli(['gate', shards[0]], { cwd: ws.dir });
      expect(gateShard.code).not.toBe(0);
      expect(gateShard.stdout + gateShard.stderr).toMatch(/shard 1 of 2 .*merge the shards/);

      const onlyOne = await runCli(['merge', shards[0], '--out', 'merged'], { cwd: ws.dir });
      expect(onlyOne.code).toBe(2);
      expect(onlyOne.stderr).toMatch(/missing shard 2\/2/);
      expect(onlyOne.stderr).not.toMatch(/\n\s+at /);

      const merged = await runCli(['merge', ...shards, '--out', 'merged'], { cwd: ws.dir });
      expect(merged.code, merged.stderr).toBe(0);
      expect(merged.stdout).toMatch(/merged 2 shards/);
      expect(readdirSync(ws.path('merged'))).toEqual(expect.arrayContaining(['run.json', 'summary.csv', 'probes.csv', 'report.html']));
      const gate = await runCli(['gate', join(ws.dir, 'merged')], { cwd: ws.dir });
      expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    } finally {
      ws.cleanup();
    }
  }, 60_000);

  it('refuses --shard with --gate or --resume, and a malformed shard', async () => {
    const ws = tinySuite(1);
    try {
      for (const args of [['--shard', '1/2', '--gate'], ['--shard', '1/2', '--resume', 'runs/x'], ['--shard', '3/2'], ['--shard', '1/9']]) {
        const result = await runCli(['run', ...args], { cwd: ws.dir });
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stderr).toMatch(/--shard|--resume/);
      }
    } finally {
      ws.cleanup();
    }
  }, 60_000);
});
