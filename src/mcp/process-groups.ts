/**
 * The process groups of the stdio servers this process started, so that none outlives it: on `exit` (a normal
 * end, `process.exit`, an uncaught exception) each group is sent SIGKILL, synchronously as `exit` requires. On
 * SIGINT, SIGTERM and SIGHUP with no other handler (a library user's program), the groups are killed and the
 * process then dies of the signal as it would have without this module; where another handler decides what the
 * signal means (the CLI's Ctrl-C stops a run, not the servers), nothing is done here, and `exit` still comes.
 * The servers run in groups of their own, so a Ctrl-C at the terminal reaches mitsu only.
 */
const groups = new Set<number>();
let installed = false;
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function killAll(): void {
  for (const pgid of groups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  groups.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  uninstall();
  process.kill(process.pid, signal);
}

const handlers = new Map(SIGNALS.map((signal) => [signal, () => onSignal(signal)] as const));

function install(): void {
  if (installed) return;
  installed = true;
  process.on("exit", killAll);
  for (const [signal, handler] of handlers) process.on(signal, handler);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  process.off("exit", killAll);
  for (const [signal, handler] of handlers) process.off(signal, handler);
}

/** Registers a server's process group (its leader's pid, spawned `detached`). */
export function trackProcessGroup(pgid: number): void {
  groups.add(pgid);
  install();
}

/** Forgets a group once it has been stopped; the handlers go when the last group does. */
export function untrackProcessGroup(pgid: number): void {
  groups.delete(pgid);
  if (groups.size === 0) uninstall();
}

/** The groups still tracked (for tests). */
export function trackedProcessGroups(): number[] {
  return [...groups];
}
