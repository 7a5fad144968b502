// Whether a process of this machine still runs: locks and temp files carry
// their writer's pid, so what a killed process left can be told from work in progress.

/** True when `pid` runs (EPERM: it runs under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
