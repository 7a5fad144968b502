// One owner for SIGINT and SIGTERM in the command line. Ctrl-C and CI's cancel
// or timeout stop a run cleanly (no new work, what is finished written, the
// run marked interrupted); a second signal, or a signal when no run is going,
// quits at once with 128 + the signal's number, as a shell reports it.
// Holding the listener also keeps a dependency's own handler from ending the
// process: the Agents SDK's tracing calls process.exit(0) on SIGTERM when it
// is the only listener, which would turn a cancelled run into a pass.

export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT;

let stopper: ((name: StopSignal) => void) | undefined;
let stopping = false;
let installed = false;

function onSignal(name: StopSignal): void {
  if (!stopper || stopping) process.exit(SIGNAL_EXIT[name]);
  stopping = true;
  stopper(name);
}

/** Installs the process's handlers once, before any command (or dependency) loads. */
export function installSignalHandlers(): void {
  if (installed) return;
  installed = true;
  for (const name of Object.keys(SIGNAL_EXIT) as StopSignal[]) process.on(name, () => onSignal(name));
}

/**
 * While a run goes, the first signal aborts the returned signal instead of
 * quitting; `received` says which one came (for the exit code). `dispose`
 * ends it.
 */
export function stopOnSignals(): { signal: AbortSignal; received: () => StopSignal | undefined; dispose: () => void } {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  stopping = false;
  stopper = (name) => {
    received = name;
    process.stderr.write(`\nmemeval: ${name} received; stopping after the calls in flight (send it again to quit now)…\n`);
    controller.abort();
  };
  return {
    signal: controller.signal,
    received: () => received,
    dispose: () => {
      stopper = undefined;
    },
  };
}
