import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import type { CodingAgentOptions } from "../../src/harness/coding-agent.js";
import { createCodingAgent } from "../../src/harness/create-coding-agent.js";
import type { AgentEvent, AgentResult } from "../../src/loop/agent-event.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import type { ScriptEntry } from "../../src/simulator/types.js";

/**
 * A coding agent on the Anthropic simulator playing `script`, in a temp folder: `ws/` (the project, holding
 * notes.txt) and `home/`, whose `~/.mitsu/settings.json` holds `settings` (no file when undefined). `extra` goes over
 * the defaults, its `env` over the default environment (PATH and the simulator's key and URL). The simulator is
 * closed and the folder removed when the test ends.
 */
export async function simCodingAgent(
  script: ScriptEntry[],
  settings: unknown,
  extra: Partial<CodingAgentOptions> = {},
) {
  const sim = await startSimulator({ script });
  const root = mkdtempSync(join(tmpdir(), "mitsu-sim-agent-"));
  onTestFinished(async () => {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  });
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
  if (settings !== undefined) writeFileSync(join(home, ".mitsu", "settings.json"), JSON.stringify(settings));
  const warnings: string[] = [];
  const agent = await createCodingAgent({
    cwd,
    home,
    model: "anthropic:claude-sonnet-5-5",
    session: { log: false },
    onWarning: (m) => warnings.push(m),
    ...extra,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url, ...extra.env },
  });
  return { sim, root, cwd, home, warnings, agent };
}

/** A run to its end: its events, and its result. */
export async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

export const text = (t: string): ScriptEntry => ({ content: [{ type: "text", text: t }] });
export const bash = (command: string, id = "toolu_b"): ScriptEntry => ({
  content: [{ type: "tool_use", id, name: "Bash", input: { command } }],
});
/** The tool_result the model got in request `i`. */
export const toolResult = (s: Simulator, i: number) => JSON.stringify(s.requests[i]?.body.messages.at(-1));
/** The run's warnings, as `code: message`. */
export const warningsOf = (events: AgentEvent[]) =>
  events.flatMap((e) => (e.type === "warning" ? [`${e.code}: ${e.message}`] : []));
