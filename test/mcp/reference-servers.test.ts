import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { type SimTurn, startSimulator } from "../../src/simulator/index.js";
import {
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  freePort,
  nodeServer,
  tempDir,
  waitFor,
} from "./mcp-fixtures.js";

const open: McpServers[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const child of children) if (child.pid) process.kill(-child.pid, "SIGKILL");
});

/** server-everything as a remote server (`streamableHttp` or `sse`) on a free loopback port (or the given one). */
async function startRemoteEverything(mode: "streamableHttp" | "sse", port?: number): Promise<string> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING_SERVER, mode], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: "ignore",
    detached: true,
  });
  children.push(child);
  await waitFor(
    () =>
      new Promise<boolean>((done) => {
        const socket = tcpConnect(port, "127.0.0.1", () => {
          socket.end();
          done(true);
        });
        socket.on("error", () => done(false));
      }),
    10_000,
    `server-everything (${mode}) to listen`,
  );
  return `http://127.0.0.1:${port}${mode === "sse" ? "/sse" : "/mcp"}`;
}

/** Stops the remote servers started so far. */
async function stopRemoteServers(): Promise<void> {
  for (const child of children.splice(0)) {
    if (!child.pid) continue;
    const exited = new Promise((done) => child.once("exit", done));
    process.kill(-child.pid, "SIGKILL");
    await exited;
  }
}

async function connect(config: Record<string, unknown>) {
  const warnings: string[] = [];
  const servers = await connectMcpServers(config, { logDir: tempDir(), onWarning: (m) => warnings.push(m) });
  open.push(servers);
  expect(warnings).toEqual([]);
  return servers;
}

/** Runs the loop over the simulator, whose script calls the MCP tools; returns the tool results the model got. */
async function runScript(servers: McpServers, calls: Array<{ name: string; input: unknown }>) {
  const script: SimTurn[] = [
    {
      content: calls.map((c, i) => ({
        type: "tool_use" as const,
        id: `toolu_${i}`,
        name: c.name,
        input: c.input,
      })),
    },
    { content: [{ type: "text", text: "Done." }] },
  ];
  const sim = await startSimulator({ script });
  try {
    const result = await runAgentToEnd({
      provider: createAnthropicProvider({ apiKey: "test", baseURL: sim.url }),
      model: "claude-sonnet-5-5",
      tools: servers.tools,
      messages: [{ role: "user", content: [{ type: "text", text: "Use the tools." }] }],
    });
    expect(result.reason).toBe("end_turn");
    const sent = sim.requests.at(-1)!.body as {
      messages: Array<{ role: string; content: unknown }>;
      tools: Array<{ name: string }>;
    };
    expect(sent.tools.map((t) => t.name)).toEqual(servers.tools.map((t) => t.name));
    return (
      sent.messages.at(-1)!.content as Array<{ type: string; content: unknown; is_error?: boolean }>
    ).filter((b) => b.type === "tool_result");
  } finally {
    await sim.close();
  }
}

describe("@modelcontextprotocol/server-everything, through the loop and the simulator", () => {
  const transports = {
    stdio: async () => nodeServer(EVERYTHING_SERVER, "stdio"),
    "streamable HTTP": async () => ({ type: "http", url: await startRemoteEverything("streamableHttp") }),
    SSE: async () => ({ type: "sse", url: await startRemoteEverything("sse") }),
  };
  for (const [label, config] of Object.entries(transports)) {
    it(`over ${label}: the model calls its tools and gets text and images back`, async () => {
      const servers = await connect({ everything: await config() });
      // 14: the server adds its elicitation tool for a client that can answer elicitations, as mitsu's can.
      expect(servers.status[0]).toMatchObject({ state: "connected", tools: 14, prompts: 4, resources: true });
      const results = await runScript(servers, [
        { name: "mcp__everything__echo", input: { message: "hello" } },
        { name: "mcp__everything__get-sum", input: { a: 2, b: 3 } },
        { name: "mcp__everything__get-tiny-image", input: {} },
        { name: "mcp__everything__get-structured-content", input: { location: "Chicago" } },
      ]);
      expect(results[0]).toMatchObject({ content: "Echo: hello" });
      expect(JSON.stringify(results[1]!.content)).toContain("5");
      const image = results[2]!.content as Array<{ type: string; source?: { media_type: string } }>;
      expect(image.some((b) => b.type === "image" && b.source?.media_type === "image/png")).toBe(true);
      expect(JSON.stringify(results[3]!.content)).toContain("temperature");
      expect(results.every((r) => r.is_error !== true)).toBe(true);
    });
  }

  it("its prompts expand without a model call, and its resources are readable", async () => {
    const servers = await connect({ everything: nodeServer(EVERYTHING_SERVER, "stdio") });
    const args = servers.prompts.find((p) => p.name === "mcp__everything__args-prompt")!;
    expect(await args.expand("Paris")).toContain("Paris");
    const results = await runScript(servers, [
      {
        name: "ReadMcpResource",
        input: { server: "everything", uri: "demo://resource/static/document/architecture.md" },
      },
    ]);
    expect(JSON.stringify(results[0]!.content).length).toBeGreaterThan(100);
  });
});

describe("a remote server that drops", () => {
  it("is reconnected once at the next call; if it stays down, the call says so", async () => {
    const port = await freePort();
    const url = await startRemoteEverything("streamableHttp", port);
    const servers = await connect({ everything: { type: "http", url } });
    const echo = servers.tools.find((t) => t.name === "mcp__everything__echo")!;
    const ctx = {
      signal: new AbortController().signal,
      toolUseId: "t",
      state: new ToolState(),
      agentPath: [],
    };
    expect(await echo.run({ message: "one" } as never, ctx)).toEqual({
      content: "Echo: one",
      isError: false,
    });

    await stopRemoteServers();
    await startRemoteEverything("streamableHttp", port);
    // The new process knows nothing of the old session: mitsu starts a new one and sends the call again.
    expect(await echo.run({ message: "two" } as never, ctx)).toEqual({
      content: "Echo: two",
      isError: false,
    });
    expect(servers.status[0]!.state).toBe("connected");

    await stopRemoteServers();
    await expect(echo.run({ message: "three" } as never, ctx)).rejects.toThrow(
      /The MCP server "everything" dropped and could not be reconnected: .*ECONNREFUSED/,
    );
  });
});

describe("@modelcontextprotocol/server-filesystem, through the loop and the simulator", () => {
  it("writes and reads files in the folder it was given, and refuses others", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "docs"));
    writeFileSync(join(dir, "docs", "a.txt"), "alpha\n");
    const servers = await connect({ fs: nodeServer(FILESYSTEM_SERVER, dir) });
    const results = await runScript(servers, [
      { name: "mcp__fs__read_text_file", input: { path: join(dir, "docs", "a.txt") } },
      { name: "mcp__fs__write_file", input: { path: join(dir, "b.txt"), content: "beta" } },
      { name: "mcp__fs__read_text_file", input: { path: "/etc/hostname" } },
    ]);
    expect(results[0]).toMatchObject({ content: "alpha\n" });
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("beta");
    expect(results[2]!.is_error).toBe(true);
    expect(JSON.stringify(results[2]!.content)).toMatch(/outside allowed directories|Access denied/);
  });
});
