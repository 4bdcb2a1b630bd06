import { type ChildProcess, spawn } from "node:child_process";
import { PROCESS_TOKEN } from "./process-tag.js";

/**
 * The watchdog's program (POSIX sh): it reads `+<pgid>` and `-<pgid>` lines from its stdin, a pipe from
 * mitsu, and keeps the set of live process groups. The read ends when mitsu's end of the pipe closes — which
 * the kernel does however mitsu ends, `kill -9` included — and then every group still in the set gets
 * SIGTERM, and SIGKILL a second later; then every process still carrying this mitsu's tag in its environment
 * (`MITSU_PROCESS_TAG=<token>.…`, see `killTagged`) — what left its group with `setsid` — gets SIGKILL.
 */
const WATCHDOG_SCRIPT = `
groups=" "
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups\${line#+} " ;;
    -*) id="\${line#-}"
        case "$groups" in *" $id "*) groups="\${groups%%" $id "*} \${groups#*" $id "}" ;; esac ;;
  esac
done
sweep() {
  for f in $(grep -l -a -F "MITSU_PROCESS_TAG=$1." /proc/[0-9]*/environ 2>/dev/null); do
    p="\${f#/proc/}"; kill -KILL "\${p%/environ}" 2>/dev/null
  done
}
if [ "$groups" != " " ]; then
  for g in $groups; do kill -TERM -"$g" 2>/dev/null; done
  sleep 1
  for g in $groups; do kill -KILL -"$g" 2>/dev/null; done
fi
# What left its group (setsid, a daemon) still carries this mitsu's tag in its environment.
[ -n "$1" ] && sweep "$1" && sweep "$1"
exit 0
`;

/** The running watchdog; null once it could not be started (then nothing is watched). */
let watchdog: ChildProcess | null | undefined;

/**
 * Starts the watchdog if it is not running yet (idempotent). Call it before spawning a child to be watched: the
 * registration right after the spawn is then one write, with no process start between the child's birth and it.
 */
export function startChildWatchdog(): void {
  start();
}

function start(): ChildProcess | null {
  if (watchdog !== undefined) return watchdog;
  if (process.platform === "win32") {
    watchdog = null;
    return null;
  }
  try {
    // Its own session: a Ctrl-C at the terminal (SIGINT to the foreground group) must not stop it, nor a hang-up.
    const child = spawn("/bin/sh", ["-c", WATCHDOG_SCRIPT, "mitsu-watchdog", PROCESS_TOKEN], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
    });
    child.on("error", () => {
      watchdog = null;
    });
    child.on("exit", () => {
      watchdog = null;
    });
    child.stdin?.on("error", () => {
      watchdog = null;
    });
    // Neither the watchdog nor its pipe keeps mitsu alive: when mitsu ends, the pipe closes, and that is the signal.
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    watchdog = child;
    return child;
  } catch {
    watchdog = null;
    return null;
  }
}

/**
 * Makes the process group `pgid` (a child started with `detached: true`, its own group) die with mitsu: if mitsu
 * ends before calling the returned function — a crash, `kill -9`, a closed terminal — one small watchdog process
 * per mitsu stops the group (SIGTERM, then SIGKILL after a second). A signal cannot be caught, so the
 * watchdog notices the end of a pipe instead. Call the returned function once the group is gone (it is
 * idempotent). Used by Bash; hooks and MCP servers started in their own group should use it too.
 */
export function watchProcessGroup(pgid: number): () => void {
  const child = start();
  if (!child?.stdin || !Number.isInteger(pgid) || pgid <= 1) return () => {};
  child.stdin.write(`+${pgid}\n`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (watchdog === child) child.stdin?.write(`-${pgid}\n`);
  };
}
