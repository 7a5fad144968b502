// Preloaded into a process the benchmark measures (`node --require THIS ...`):
// when that process exits, it writes its own resource use as JSON to the file
// named by BENCH_USAGE_FILE. Node cannot report a child's rusage to its parent,
// and /proc/<pid> is gone once the child is reaped, so the child reports itself.
// CommonJS, so that `--require` loads it before the measured program starts.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');

const file = process.env.BENCH_USAGE_FILE;
// Only the process started with the flag reports: a child it spawns must not overwrite the file.
delete process.env.BENCH_USAGE_FILE;

/** VmHWM (peak resident set) in kB from /proc/self/status; undefined where there is no /proc. */
function vmHwmKB() {
  try {
    const line = readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    return line ? Number(line.replace(/\D+/g, '')) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU ms of the children this process has waited for (cutime + cstime of
 * /proc/self/stat), e.g. a `git rev-parse`: their work is part of the run too.
 * Clock ticks are 100 per second on Linux.
 */
function reapedChildrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return 0;
  }
}

if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const report = {
      userMs: usage.userCPUTime / 1000,
      systemMs: usage.systemCPUTime / 1000,
      childrenCpuMs: reapedChildrenCpuMs(),
      // resourceUsage().maxRSS is the same peak from getrusage, as a fallback.
      peakRssKB: vmHwmKB() ?? usage.maxRSS,
    };
    writeFileSync(file, JSON.stringify(report));
  });
}
