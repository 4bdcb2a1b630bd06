import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runAgentToEnd } from "../loop/run-agent.js";
import { type Tool, toToolDefinition } from "../loop/tool.js";
import { TestProvider, textTurn, toolTurn, toolUse } from "../testing/test-provider.js";
import { findBreakpoints } from "./cache-breakpoints.js";
import { createContext } from "./create-context.js";
import { comparePrefix } from "./prefix-diagnostics.js";
import { isReminderBlock } from "./reminder-engine.js";

const echo: Tool = {
  name: "Read",
  description: "Reads a file.",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  run: async (input) => `contents of ${String(input.path)}`,
};

describe("createContext through runAgent", () => {
  it("every request the loop sends extends the previous one, reminders included", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "mitsu-loop-"));
    onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
    writeFileSync(join(cwd, "AGENTS.md"), "Answer in English.");
    const tools = [echo];
    const ctx = await createContext({
      cwd,
      home: join(cwd, "home"),
      model: "m",
      tools: tools.map(toToolDefinition),
    });
    const scripts = [
      ...Array.from({ length: 8 }, (_, i) =>
        toolTurn(
          Array.from({ length: i === 2 ? 12 : 1 }, (_, j) =>
            toolUse(`toolu_${i}_${j}`, "Read", { path: `f${j}` }),
          ),
        ),
      ),
      textTurn("Done."),
    ];
    const provider = new TestProvider(scripts);
    const result = await runAgentToEnd({
      provider,
      model: "m",
      system: ctx.system,
      tools,
      messages: [{ role: "user", content: [{ type: "text", text: "Read everything" }] }],
      prepareRequest: ctx.prepareRequest,
    });

    expect(result.reason).toBe("end_turn");
    expect(provider.requests).toHaveLength(9);
    for (let i = 1; i < provider.requests.length; i++) {
      expect(comparePrefix(provider.requests[i - 1]!, provider.requests[i]!)).toEqual({ ok: true });
      expect(findBreakpoints(provider.requests[i]!).length).toBe(4);
    }
    expect(ctx.diagnostics.every((d) => d.ok)).toBe(true);
    // The instructions reminder went into the first user message and is still there, as sent, at the end.
    const first = result.messages[0]!;
    expect(first.content.filter(isReminderBlock)).toHaveLength(1);
    expect(first.content.at(-1)).toMatchObject({ type: "text", text: "Read everything" });
    expect(provider.requests[8]!.messages[0]!.content.filter(isReminderBlock)).toHaveLength(1);
  });
});
