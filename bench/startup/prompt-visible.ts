import { spawn } from "@lydell/node-pty";

/** Terminal control sequences (CSI, OSC, single-character escapes), removed to read what the screen shows. */
const CONTROL = /\u001b\[[0-9;?<>=!]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-_]/g;

/**
 * Spawns the command in a pseudo-terminal (80×30) and resolves to the milliseconds from spawn to the first
 * output in which `prompt` matches the text on screen — the moment a user could start typing. NaN when it never
 * shows within `timeoutMs`. The process is killed as soon as the prompt is seen.
 */
export function promptVisibleMs(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; prompt: RegExp; timeoutMs?: number },
): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now();
    const term = spawn(command, args, {
      cwd: options.cwd,
      env: options.env as Record<string, string>,
      cols: 100,
      rows: 30,
      name: "xterm-256color",
    });
    let screen = "";
    let seen = Number.NaN;
    const timer = setTimeout(() => term.kill("SIGKILL"), options.timeoutMs ?? 10_000);
    term.onData((data) => {
      if (!Number.isNaN(seen)) return;
      screen += data;
      if (options.prompt.test(screen.replace(CONTROL, ""))) {
        seen = performance.now() - start;
        term.kill("SIGKILL");
      }
    });
    term.onExit(() => {
      clearTimeout(timer);
      resolve(seen);
    });
  });
}
