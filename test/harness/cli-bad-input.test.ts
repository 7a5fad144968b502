// Bad input at the command line never crashes: one line per problem with its
// location, exit 2, and no stack trace.
import { mkdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli, stackLines, tinySuite, type Workspace } from '../helpers/cli.js';

interface Case {
  name: string;
  setup?: (ws: Workspace, config: string) => void;
  args: string[];
  /** Every line of stderr, in order (the workspace path replaced by `<ws>`). */
  expected: RegExp[];
}

const CFG = 'memeval.config.yaml';

const CASES: Case[] = [
  {
    name: 'malformed YAML in a transcript',
    setup: (ws) => ws.write('data/t1.yaml', 'id: t1\nturns:\n  - user: "unclosed\n    assistant: x\n'),
    args: ['run'],
    expected: [/^data\/t1\.yaml:\d+:\d+: YAML syntax error: .*quote/],
  },
  {
    name: 'wrong types in the config',
    setup: (ws, cfg) => ws.write(CFG, cfg.replace('concurrency: 2', 'concurrency: lots').replace('repeat: 1', 'repeat: [1]')),
    args: ['run'],
    expected: [/^<ws>\/memeval\.config\.yaml:5:14: "concurrency" .* whole number/, /^<ws>\/memeval\.config\.yaml:6:9: "repeat" .* whole number/],
  },
  {
    name: 'a wrong type in a transcript',
    setup: (ws) => ws.write('data/t1.yaml', 'id: t1\nturns: 5\n'),
    args: ['run'],
    expected: [/^data\/t1\.yaml:2:8: "turns" .* must be a list/],
  },
  {
    name: 'an unknown strategy',
    setup: (ws, cfg) => ws.write(CFG, cfg.replace('use: trimming', 'use: trimmin')),
    args: ['run'],
    expected: [/^<ws>\/memeval\.config\.yaml:\d+:\d+: unknown strategy "trimmin" .*did you mean "trimming"/],
  },
  {
    name: 'an unknown strategy option',
    setup: (ws, cfg) => ws.write(CFG, cfg.replace('max_turns: 1', 'max_turnz: 1')),
    args: ['run'],
    expected: [/^<ws>\/memeval\.config\.yaml:\d+:\d+: strategy "trim-1" needs option "max_turns"/, /^<ws>\/memeval\.config\.yaml:\d+:\d+: unknown option "max_turnz"/],
  },
  {
    name: 'a bad glob',
    setup: (ws, cfg) => ws.write(CFG, cfg.replace('[data/*.yaml]', '["data/[*.yaml"]')),
    args: ['run'],
    expected: [/^data\/\[\*\.yaml: no transcript files match/],
  },
  {
    name: 'an empty suite',
    setup: (ws) => mkdirSync(ws.path('empty')),
    args: ['run', '--datasets', 'empty/*.yaml'],
    expected: [/^empty\/\*\.yaml: no transcript files match/],
  },
  {
    name: 'an unreadable config file (a directory)',
    setup: (ws) => mkdirSync(ws.path('cfgdir')),
    args: ['run', '--config', 'cfgdir'],
    expected: [/^cfgdir: cannot read config file/],
  },
  {
    name: 'a binary transcript',
    setup: (ws) => ws.write('data/t9.yaml', '\u0000\u0001\u0002'),
    args: ['run'],
    expected: [/^data\/t9\.yaml:1:1: the transcript must be a mapping/],
  },
  {
    // Once grew memory until the machine gave out, instead of being refused.
    name: 'a repeat past its bound',
    setup: (ws, cfg) => ws.write(CFG, cfg.replace('repeat: 1', 'repeat: 1000000000')),
    args: ['run'],
    expected: [/^<ws>\/memeval\.config\.yaml:6:9: "repeat" in the config must be at most 100 \(the bound limits\.max_repeat; .*\), not 1000000000$/],
  },
  {
    // Once failed when the run directory was created, without naming the config line.
    name: 'an out that is a file',
    setup: (ws) => ws.write('runs', 'not a folder\n'),
    args: ['run'],
    expected: [/^<ws>\/memeval\.config\.yaml:2:6: "out" in the config is a file, not a folder \(<ws>\/runs\)$/],
  },
  { name: 'an unknown flag', args: ['run', '--frobnicate'], expected: [/^memeval: Unknown option '--frobnicate'/, /^Run "memeval --help"/] },
  { name: 'an unknown command', args: ['frobnicate'], expected: [/^memeval: unknown command "frobnicate"/, /^Run "memeval --help"/] },
  { name: 'a missing config file', args: ['run', '--config', 'nope.yaml'], expected: [/^memeval: nope\.yaml: config file not found/] },
  { name: 'an unknown --strategies id', args: ['run', '--strategies', 'nope'], expected: [/^--strategies: unknown strategy id nope \(configured: full, trim-1, sum-3-1\)/] },
  { name: 'a --resume that is not a run', args: ['run', '--resume', 'nowhere'], expected: [/^memeval: nowhere: not a run directory/] },
  { name: 'a bad number flag', args: ['run', '--concurrency', '0'], expected: [/^memeval: --concurrency must be a whole number/] },
  { name: 'a --repeat past its bound', args: ['run', '--repeat', '1000000000'], expected: [/^memeval: --repeat must be at most 100 \(the bound limits\.max_repeat; .*\), not 1000000000$/] },
  { name: 'a --concurrency past its bound', args: ['run', '--concurrency', '100000'], expected: [/^memeval: --concurrency must be at most 256 \(the bound limits\.max_concurrency; .*\), not 100000$/] },
  {
    name: 'an --out that is a file',
    setup: (ws) => ws.write('afile', 'not a folder\n'),
    args: ['run', '--out', 'afile'],
    expected: [/^memeval: --out afile is a file, not a folder/],
  },
];

describe.concurrent('bad input', () => {
  for (const c of CASES) {
    it(`${c.name} → exit 2, located one-line problems, no stack`, async () => {
      const ws = tinySuite(1);
      try {
        c.setup?.(ws, readFileSync(ws.path(CFG), 'utf8'));
        const result = await runCli(c.args, { cwd: ws.dir });
        const lines = result.stderr.replaceAll(ws.dir, '<ws>').split('\n').filter((l) => l.trim());
        expect(stackLines(result.stderr)).toEqual([]);
        expect(result.code, result.stderr).toBe(2);
        expect(lines).toHaveLength(c.expected.length);
        c.expected.forEach((re, i) => expect(lines[i]).toMatch(re));
        expect(result.stdout).toBe('');
      } finally {
        ws.cleanup();
      }
    });
  }
});
