import { describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { createSubagentRenderer } from "../../src/cli/render/subagent-renderer.js";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { ToolUseBlock } from "../../src/messages/index.js";

const task = (id: string, description: string): ToolUseBlock => ({
  type: "tool_use",
  id,
  name: "Task",
  input: { description, prompt: "p", subagent_type: "Explore" },
});
const grep = (id: string): ToolUseBlock => ({ type: "tool_use", id, name: "Grep", input: { pattern: "x" } });

describe("the sub-agent renderer", () => {
  it("at a terminal: running sub-agents share one compact line; each Task result collapses to one line", () => {
    const seen: AgentEvent[] = [];
    const render = createSubagentRenderer({
      render: (e) => seen.push(e),
      style: createStyle(false),
      summarize: (b) => `${b.name} ${(b.input as { pattern?: string }).pattern ?? ""}`.trim(),
      live: true,
    });
    render({ type: "tool-call-start", turn: 1, agentPath: [], block: task("t1", "alpha") });
    render({ type: "tool-call-start", turn: 1, agentPath: [], block: task("t2", "beta") });
    render({ type: "tool-call-start", turn: 1, agentPath: ["t1"], block: grep("g1") });
    render({ type: "text-delta", turn: 1, agentPath: ["t2"], id: "0", delta: "thinking aloud" });
    const progress = seen.filter((e) => e.type === "tool-progress");
    expect(progress.at(-1)).toMatchObject({
      toolUseId: "t2",
      text: "alpha: Grep x (1, 0)  │  beta: starting (0, 0)\n",
      agentPath: [],
    });
    // The sub-agent's own text and calls never reach the main renderer at a terminal.
    expect(seen.some((e) => e.agentPath.length > 0)).toBe(false);
    render({
      type: "tool-call-end",
      turn: 1,
      agentPath: [],
      block: task("t1", "alpha"),
      durationMs: 5,
      result: {
        type: "tool_result",
        tool_use_id: "t1",
        content: "The answer.\n\n[Explore: 2 turns, 1 tool call, 1,200 tokens, 0.4 s]",
      },
    });
    expect(seen.at(-1)).toMatchObject({
      type: "tool-call-end",
      result: { content: "Done — Explore: 2 turns, 1 tool call, 1,200 tokens, 0.4 s" },
    });
    render({ type: "tool-call-start", turn: 2, agentPath: ["t2"], block: grep("g2") });
    expect(seen.filter((e) => e.type === "tool-progress").at(-1)).toMatchObject({
      toolUseId: "t2",
      text: "Grep x · 1 tool call · 0 tokens\n",
    });
    // A late event of a finished sub-agent is dropped.
    const before = seen.length;
    render({ type: "tool-call-start", turn: 3, agentPath: ["t1"], block: grep("g3") });
    expect(seen).toHaveLength(before);
  });
});
