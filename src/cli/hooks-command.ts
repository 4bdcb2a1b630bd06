import type { CodingAgent } from "../harness/index.js";
import type { UnapprovedHooksFile } from "../hooks/index.js";
import type { LineInput } from "./line-input.js";
import type { Style } from "./style.js";
import { showControls } from "./terminal-text.js";

/** `/hooks`: each hook that runs (source file, event, matcher, command), then the project files not approved. */
export function formatHooks(agent: CodingAgent, style: Style): string {
  const line = (h: { event: string; matcher: string; command: string; timeoutMs: number }) =>
    `  ${h.event}${h.matcher ? ` [${showControls(h.matcher)}]` : ""}: ${showControls(h.command)}${style.dim(` (timeout ${h.timeoutMs / 1000} s)`)}`;
  const out: string[] = [];
  const bySource = new Map<string, string[]>();
  for (const hook of agent.hooks.runner.commands) {
    const list = bySource.get(hook.source) ?? [];
    list.push(line(hook));
    bySource.set(hook.source, list);
  }
  if (bySource.size === 0) out.push(style.dim("No hooks run in this session."));
  for (const [source, lines] of bySource) out.push(style.bold(showControls(source)), ...lines);
  for (const file of agent.hooks.skipped) {
    out.push(style.bold(`${showControls(file.file)} ${style.yellow("(not approved: these do not run)")}`));
    out.push(...file.hooks.map(line));
  }
  return out.join("\n");
}

/**
 * The question before a project settings file's hooks may run: what each would run, then y/n. A yes is
 * remembered for the file as it is now (a changed file is asked about again); ended input is a no.
 */
export async function askApproveHooks(
  file: UnapprovedHooksFile,
  io: { input: LineInput; write: (text: string) => void; style: Style },
): Promise<boolean> {
  const { input, write, style } = io;
  write(
    `${style.yellow("?")} ${style.bold(showControls(file.file))} defines hooks: commands mitsu would run on your behalf.\n`,
  );
  for (const hook of file.hooks) {
    write(
      `  ${hook.event}${hook.matcher ? ` [${showControls(hook.matcher)}]` : ""}: ${showControls(hook.command)}\n`,
    );
  }
  for (;;) {
    const line = await input.read("Run these hooks in this folder? [y]es / [n]o ", { fresh: true });
    if (line === undefined) return false;
    const answer = line.trim().toLowerCase();
    if (answer === "y" || answer === "yes") return true;
    if (answer === "n" || answer === "no") return false;
    write(style.dim("  Please answer y or n.\n"));
  }
}
