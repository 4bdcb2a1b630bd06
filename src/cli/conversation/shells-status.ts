import type { ShellInfo } from "../../tools/background-shells.js";
import { fitWidth } from "../render/status-line.js";
import type { Style } from "../render/style.js";

/**
 * The line under the conversation that says which commands run in the background (`bash_1 npm run dev`), cut to
 * the terminal's width; undefined when none does.
 */
export function runningShellsLine(
  running: readonly ShellInfo[],
  style: Style,
  columns = 80,
): string | undefined {
  if (running.length === 0) return undefined;
  const noun = running.length === 1 ? "background shell" : "background shells";
  const list = running.map((shell) => `${shell.id} ${shell.command.replace(/\s+/g, " ").trim()}`).join(" · ");
  return style.dim(fitWidth(`◦ ${running.length} ${noun} running: ${list}`, Math.max(20, columns - 1)));
}

/** What print mode says when its end stops commands still running in the background. */
export function stoppedShellsNotice(stopped: readonly ShellInfo[]): string | undefined {
  if (stopped.length === 0) return undefined;
  const noun = stopped.length === 1 ? "background shell" : "background shells";
  return `stopped ${stopped.length} ${noun} still running at exit: ${stopped.map((s) => s.id).join(", ")}`;
}
