import type { CodingAgent } from "../../harness/index.js";
import type { Style } from "../render/style.js";
import { showControls } from "../render/terminal-text.js";

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
