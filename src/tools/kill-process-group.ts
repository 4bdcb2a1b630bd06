import { existsSync, readdirSync, readFileSync } from "node:fs";

const HAS_PROC = existsSync("/proc/self/stat");

/**
 * True while a live process of the group `pgid` exists. Zombies do not count: they have ended and only
 * wait to be collected, which never happens where PID 1 does not reap orphans (some containers and VMs).
 * On Linux this reads /proc; elsewhere it asks the kernel with signal 0 (zombies then count as alive).
 */
export function processGroupExists(pgid: number): boolean {
  if (HAS_PROC) return procHasLiveMember(pgid);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function procHasLiveMember(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // It ended while we looked.
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
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
