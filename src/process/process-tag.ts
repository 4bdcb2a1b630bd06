import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/**
 * The environment variable that marks every process a command starts. A process group does not hold a command
 * that calls `setsid` (a daemon, `(setsid … &)`): it leaves the group, and killing the group misses it. The
 * environment is inherited across `setsid`, `fork` and `exec` alike, so the tag finds such a process afterwards
 * in `/proc/<pid>/environ` — at the command's end, at KillShell and the session's end, and by the watchdog when
 * mitsu itself is killed. (A process that empties its own environment escapes the tag; the sandbox's PID
 * namespace holds even that one.)
 */
export const PROCESS_TAG_VAR = "MITSU_PROCESS_TAG";

/** This mitsu's token: every tag it hands out starts with it (`<token>.<n>`). */
export const PROCESS_TOKEN = randomBytes(8).toString("hex");
let sequence = 0;

/** A new tag for one command. */
export function newProcessTag(): string {
  return `${PROCESS_TOKEN}.${++sequence}`;
}

/**
 * Sends SIGKILL to every process whose environment holds `tag` — exactly, or with `prefix` every tag that starts
 * with it — and returns how many there were. Linux only (`/proc`); elsewhere, and for processes of other users,
 * nothing is found. Two passes, for what a dying process started meanwhile.
 */
export function killTagged(tag: string, options: { prefix?: boolean } = {}): number {
  if (process.platform !== "linux") return 0;
  const needle = Buffer.from(`${PROCESS_TAG_VAR}=${tag}${options.prefix ? "" : "\0"}`);
  let killed = 0;
  for (let pass = 0; pass < 2; pass++) {
    let found = 0;
    let names: string[];
    try {
      names = readdirSync("/proc");
    } catch {
      return killed;
    }
    for (const name of names) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
      let environ: Buffer;
      try {
        environ = readFileSync(`/proc/${name}/environ`);
      } catch {
        continue; // gone, or not ours to read
      }
      const at = environ.indexOf(needle);
      if (at < 0 || (at > 0 && environ[at - 1] !== 0)) continue;
      try {
        process.kill(pid, "SIGKILL");
        found++;
      } catch {
        // Ended meanwhile.
      }
    }
    killed += found;
    if (found === 0) break;
  }
  return killed;
}
