import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/harness/index.js";
import type { AgentEvent, AgentResult } from "../../src/loop/agent-event.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { alive, EDGE_SERVER, waitFor } from "./mcp-fixtures.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

describe("createCodingAgent with MCP servers (the library, without the CLI)", () => {
  it("adds the servers' tools after the built-ins, runs them, expands their prompts, and stops them on close", async () => {
    sim = await startSimulator({
      script: [
        { content: [{ type: "tool_use", id: "toolu_1", name: "mcp__edge__spawn_grandchild", input: {} }] },
        { content: [{ type: "text", text: "Started." }] },
      ],
    });
    const root = mkdtempSync(join(tmpdir(), "mitsu-agent-mcp-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    mkdirSync(cwd);
    const config = JSON.stringify({
      mcpServers: { edge: { command: process.execPath, args: [EDGE_SERVER] } },
    });
    const agent = await createCodingAgent({
      cwd,
      home: join(root, "home"),
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: sim.url },
      model: "anthropic:claude-sonnet-5-5",
      allowedTools: ["mcp__edge"],
      session: { log: false },
      mcp: { configFiles: [config], strict: true },
    });
    const names = agent.tools.map((t) => t.name);
    const firstMcp = names.findIndex((n) => n.startsWith("mcp__"));
    expect(names.slice(0, firstMcp)).toContain("Task");
    expect(
      names
        .slice(firstMcp)
        .every((n) => n.startsWith("mcp__") || n.endsWith("McpResources") || n === "ReadMcpResource"),
    ).toBe(true);
    expect(agent.mcp?.status()).toMatchObject([{ name: "edge", state: "connected", scope: "cli" }]);

    const { result } = await drain(agent.prompt("start one"));
    expect(result.reason).toBe("end_turn");
    const sent = sim.requests.at(-1)!.body as {
      messages: Array<{ content: Array<{ type: string; content?: unknown }> }>;
    };
    const pid = Number(sent.messages.at(-1)!.content.find((b) => b.type === "tool_result")!.content);
    expect(alive(pid)).toBe(true);

    const expansion = agent.expandSlash("/mcp__edge__greet Ada");
    expect(expansion.kind).toBe("mcp-prompt");
    if (expansion.kind === "mcp-prompt") expect(await expansion.expand()).toBe("Say hello to Ada.");

    await agent.close();
    await waitFor(() => !alive(pid), 3000, "the server's child to be stopped by close()");
    expect(readFileSync(join(root, "home", ".mitsu", "mcp-logs", "edge.log"), "utf8")).toContain(EDGE_SERVER);
  });
});
