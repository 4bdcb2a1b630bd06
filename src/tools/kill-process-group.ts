/** True while any process of the group `pgid` exists (zombies included: they have not been reaped yet). */
export function processGroupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Stops every process of the group `pgid`: SIGTERM, so they can clean up, then SIGKILL for those still
 * there after `graceMs`. Resolves when the group is gone or SIGKILL has been sent. Never throws.
 */
export async function killProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!processGroupExists(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
}

function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
