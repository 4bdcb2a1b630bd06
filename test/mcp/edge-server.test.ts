import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Tool, ToolContext } from "../../src/loop/tool.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/connect-mcp-servers.js";
import type { McpTool } from "../../src/mcp/mcp-tool.js";
import { alive, EDGE_SERVER, nodeServer, tempDir, waitFor } from "./mcp-fixtures.js";

const open: McpServers[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function connect(
  config: Record<string, unknown>,
  options: Parameters<typeof connectMcpServers>[1] = {},
) {
  const warnings: string[] = [];
  const servers = await connectMcpServers(config, {
    logDir: tempDir(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    onWarning: (m) => warnings.push(m),
    ...options,
  });
  open.push(servers);
  return { servers, warnings };
}

function context(overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    toolUseId: "toolu_1",
    state: new ToolState(),
    agentPath: [],
    ...overrides,
  };
}

function tool(servers: McpServers, name: string): Tool<never> {
  const found = servers.tools.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name} in ${servers.tools.map((t) => t.name).join(", ")}`);
  return found;
}

/** `${NAME}` as a user writes it in a configuration (built here so the linter does not take it for a template). */
const v = (name: string) => `$${"{"}${name}}`;

const readText = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : "");

const run = (t: Tool<never>, input: Record<string, unknown>, ctx = context()) => t.run(input as never, ctx);

describe("an MCP server's tools (the edge server, over stdio)", () => {
  it("are named mcp__<server>__<tool>, valid for every provider, sorted, with resource tools last", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    const names = servers.tools.map((t) => t.name);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(names).toContain("mcp__edge__echo");
    expect(names).toContain("mcp__edge__weird_name_with_spaces");
    const long = names.find((n) => n.startsWith("mcp__edge__a_very_long"));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/_[0-9a-f]{8}$/);
    const mcpNames = names.filter((n) => n.startsWith("mcp__"));
    expect(mcpNames).toEqual([...mcpNames].sort());
    expect(names.slice(-2)).toEqual(["ListMcpResources", "ReadMcpResource"]);
    expect(servers.status).toMatchObject([
      { name: "edge", state: "connected", transport: "stdio", tools: 13, prompts: 1, resources: true },
    ]);
  });

  it("names the same tools the same way on every run (a byte-stable tools prefix)", async () => {
    const first = await connect({ edge: nodeServer(EDGE_SERVER) });
    const second = await connect({ edge: nodeServer(EDGE_SERVER, "--page-size", "3") });
    const defs = (s: McpServers) =>
      JSON.stringify(s.tools.map((t) => [t.name, t.description, t.inputSchema]));
    expect(defs(second.servers)).toBe(defs(first.servers));
  });

  it("follows tools/list pagination", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER, "--page-size", "2") });
    expect(servers.status[0]!.tools).toBe(13);
  });

  it("sends input and maps each content type", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    expect(await run(tool(servers, "mcp__edge__echo"), { text: "hi" })).toEqual({
      content: "hi",
      isError: false,
    });
    const contents = (await run(tool(servers, "mcp__edge__contents"), {})) as { content: unknown[] };
    expect(contents.content).toEqual([
      { type: "text", text: "plain text" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: expect.any(String) } },
      { type: "text", text: "[audio: audio/wav, 12 bytes — not shown]" },
      { type: "text", text: "embedded text" },
      {
        type: "text",
        text: "[binary resource edge://data.bin: application/octet-stream, 6 bytes, not shown]",
      },
      { type: "text", text: "[resource link: big.csv — edge://big.csv (text/csv; a large table)]" },
    ]);
    expect(await run(tool(servers, "mcp__edge__structured"), {})).toEqual({
      content: '{"temperature":21,"unit":"C"}',
      isError: false,
    });
  });

  it("turns isError into an error result, and a JSON-RPC error into a ToolError", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    expect(await run(tool(servers, "mcp__edge__fail"), {})).toEqual({
      content: "it went wrong",
      isError: true,
    });
    await expect(run(tool(servers, "mcp__edge__throws"), {})).rejects.toThrow(
      /MCP server "edge", tool throws: .*thrown by the tool/,
    );
  });

  it("caps a huge output with a note that says so", async () => {
    const { servers } = await connect(
      { edge: nodeServer(EDGE_SERVER) },
      { limits: { maxOutputTokens: 1000 } },
    );
    const output = (await run(tool(servers, "mcp__edge__huge"), { chars: 200_000 })) as {
      content: Array<{ text: string }>;
    };
    expect(output.content[0]!.text).toHaveLength(4000);
    expect(output.content[1]!.text).toContain(
      "Output truncated: the tool returned about 50,000 tokens, more than the limit of 1,000 (MAX_MCP_OUTPUT_TOKENS)",
    );
  });

  it("stops a call at MCP_TOOL_TIMEOUT and tells the server to cancel", async () => {
    const events = join(tempDir(), "events.jsonl");
    const { servers } = await connect(
      { edge: nodeServer(EDGE_SERVER, "--events", events) },
      { limits: { toolTimeoutMs: 150 } },
    );
    await expect(run(tool(servers, "mcp__edge__slow"), { ms: 5000 })).rejects.toThrow(
      /did not finish within 150 ms \(MCP_TOOL_TIMEOUT\); the server was asked to cancel it/,
    );
    await waitFor(() => readText(events).includes('"cancelled":"slow"'), 3000, "the cancellation");
  });

  it("sends the server a cancellation when the run is aborted", async () => {
    const events = join(tempDir(), "events.jsonl");
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER, "--events", events) });
    const abort = new AbortController();
    const call = run(tool(servers, "mcp__edge__slow"), { ms: 5000 }, context({ signal: abort.signal }));
    await waitFor(() => readText(events).includes('"call":"slow"'), 3000, "the call");
    abort.abort(new Error("interrupted"));
    await expect(call).rejects.toThrow();
    await waitFor(() => readText(events).includes('"cancelled":"slow"'), 3000, "the cancellation");
    // The server is still usable.
    expect(await run(tool(servers, "mcp__edge__echo"), { text: "still here" })).toEqual({
      content: "still here",
      isError: false,
    });
  });

  it("reports the server's progress notifications as the tool's progress", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    const progress: string[] = [];
    await run(
      tool(servers, "mcp__edge__slow"),
      { ms: 40 },
      context({ progress: (text) => progress.push(text) }),
    );
    // The SDK handles notifications a microtask later than responses, so the last one may come after the result.
    expect(progress.slice(0, 3)).toEqual(["step 1 of 4", "step 2 of 4", "step 3 of 4"]);
  });

  it("reports a server that crashes mid-call, and the other servers go on", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER), other: nodeServer(EDGE_SERVER) });
    await expect(run(tool(servers, "mcp__edge__crash"), {})).rejects.toThrow(
      /The MCP server "edge" closed the connection during the call to crash \(the server process ended \(exit code 3\)/,
    );
    expect(servers.status.find((s) => s.name === "edge")).toMatchObject({ state: "failed" });
    await expect(run(tool(servers, "mcp__edge__echo"), { text: "x" })).rejects.toThrow(
      /not connected \(failed/,
    );
    expect(await run(tool(servers, "mcp__other__echo"), { text: "ok" })).toEqual({
      content: "ok",
      isError: false,
    });
  });

  it("gives up on a server that never answers initialize, within MCP_TIMEOUT, and stops it", async () => {
    const pidFile = join(tempDir(), "grandchild.pid");
    const started = Date.now();
    const { servers, warnings } = await connect(
      {
        stuck: nodeServer(EDGE_SERVER, "--no-initialize", "--grandchild", pidFile),
        edge: nodeServer(EDGE_SERVER),
      },
      { limits: { timeoutMs: 3000 } },
    );
    // A healthy server beside it is not held up; the whole start-up ends at the timeout, not later.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(servers.status.find((s) => s.name === "stuck")).toMatchObject({
      state: "failed",
      error: expect.stringContaining("no answer within 3000 ms (MCP_TIMEOUT)"),
    });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^MCP server "stuck" failed to start, so its tools are not available: no answer within 3000 ms/,
      ),
    ]);
    expect(servers.tools.some((t) => t.name === "mcp__edge__echo")).toBe(true);
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    await waitFor(() => !alive(grandchild), 3000, "the stuck server's grandchild to be stopped");
  });

  it("takes a changed tool list (list_changed) only when applyChanges is called, and says why", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    const changed: string[] = [];
    servers.onChange((server) => changed.push(server));
    const before = servers.tools;
    await run(tool(servers, "mcp__edge__change_tools"), {});
    await waitFor(() => changed.length > 0, 3000, "list_changed");
    expect(servers.tools).toBe(before);
    expect(servers.pendingChanges).toEqual(["edge"]);
    expect(servers.applyChanges()).toBe(
      'the MCP server "edge" changed its tool list (notifications/tools/list_changed)',
    );
    expect(servers.tools.map((t) => t.name)).toContain("mcp__edge__added_later");
    expect(servers.applyChanges()).toBeUndefined();
  });

  it("gives a stdio server a minimal environment: no API keys unless configured", async () => {
    const { servers } = await connect(
      { edge: { ...nodeServer(EDGE_SERVER), env: { TOKEN: v("MY_TOKEN") } } },
      {
        env: {
          PATH: process.env.PATH,
          HOME: "/home/x",
          LANG: "C.UTF-8",
          LC_ALL: "C",
          ANTHROPIC_API_KEY: "sk-secret",
          OPENAI_API_KEY: "sk-2",
          SECRET_THING: "s",
          MY_TOKEN: "t",
        },
      },
    );
    const output = (await run(tool(servers, "mcp__edge__env"), {})) as { content: string };
    const names = output.content.split(",");
    expect(names).toEqual(expect.arrayContaining(["PATH", "HOME", "LANG", "LC_ALL", "TOKEN"]));
    expect(names).not.toContain("ANTHROPIC_API_KEY");
    expect(names).not.toContain("OPENAI_API_KEY");
    expect(names).not.toContain("SECRET_THING");
  });

  it("reports a missing variable as that server's clear error; the others start", async () => {
    const { servers, warnings } = await connect({
      broken: { ...nodeServer(EDGE_SERVER), args: [EDGE_SERVER, v("NOPE")] },
      fine: { ...nodeServer(EDGE_SERVER), args: [EDGE_SERVER, v("NOPE:-x")] },
    });
    expect(servers.status.map((s) => [s.name, s.state])).toEqual([
      ["broken", "failed"],
      ["fine", "connected"],
    ]);
    expect(warnings[0]).toContain(
      'MCP server "broken" cannot start: the environment variable NOPE (in args[1]) is not set and has no default',
    );
  });

  it("reports a command that does not exist", async () => {
    const { servers } = await connect({ ghost: { command: "/nonexistent/mcp-server" } });
    expect(servers.status[0]).toMatchObject({
      state: "failed",
      error: expect.stringContaining("command not found: /nonexistent/mcp-server"),
    });
  });

  it("writes a stdio server's stderr to its log file", async () => {
    const logDir = tempDir();
    const { servers } = await connect(
      { edge: { command: process.execPath, args: ["-e", "console.error('to the log'); process.exit(1)"] } },
      { logDir },
    );
    const status = servers.status[0]!;
    expect(status.state).toBe("failed");
    expect(status.logFile).toBe(join(logDir, "edge.log"));
    expect(readFileSync(status.logFile!, "utf8")).toContain("to the log");
    expect(status.error).toContain(`its stderr is in ${status.logFile}`);
  });

  it("stops the whole process group on close: no orphaned grandchildren", async () => {
    const pidFile = join(tempDir(), "grandchild.pid");
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER, "--grandchild", pidFile) });
    const spawned = Number(
      ((await run(tool(servers, "mcp__edge__spawn_grandchild"), {})) as { content: string }).content,
    );
    const early = Number(readFileSync(pidFile, "utf8"));
    expect(alive(spawned) && alive(early)).toBe(true);
    await servers.close();
    await waitFor(() => !alive(spawned) && !alive(early), 3000, "the grandchildren to be stopped");
  });

  it("expands a prompt through prompts/get, and checks its required arguments", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    const [greet] = servers.prompts;
    expect(greet!.name).toBe("mcp__edge__greet");
    expect(greet!.description).toBe("Greets someone. — /mcp__edge__greet <name> [style] (MCP edge)");
    expect(await greet!.expand("Ada friendly and warm")).toBe("Say hello to Ada in a friendly and warm way.");
    await expect(greet!.expand("")).rejects.toThrow(
      "/mcp__edge__greet needs name: /mcp__edge__greet <name> [style]",
    );
  });

  it("lists and reads resources through ListMcpResources and ReadMcpResource", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    const listed = (await run(tool(servers, "ListMcpResources"), {})) as Array<{ text: string }>;
    expect(listed[0]!.text).toBe(
      'Server "edge": 2 resources\n- edge://readme — readme (text/plain)\n- edge://logo — logo (image/png)',
    );
    expect(await run(tool(servers, "ReadMcpResource"), { server: "edge", uri: "edge://readme" })).toEqual([
      { type: "text", text: "Read me first." },
    ]);
    const logo = (await run(tool(servers, "ReadMcpResource"), {
      server: "edge",
      uri: "edge://logo",
    })) as Array<{ type: string }>;
    expect(logo[0]!.type).toBe("image");
    await expect(run(tool(servers, "ReadMcpResource"), { server: "nope", uri: "x" })).rejects.toThrow(
      'No connected MCP server named "nope" has resources. Servers with resources: "edge".',
    );
  });

  it("marks tools annotated readOnlyHint as read-only (what plan mode allows), and states their input for questions", async () => {
    const { servers } = await connect({ edge: nodeServer(EDGE_SERVER) });
    expect(tool(servers, "mcp__edge__echo").readOnly).toBe(true);
    expect(tool(servers, "mcp__edge__slow").readOnly).toBe(false);
    const echo = tool(servers, "mcp__edge__echo") as Tool<Record<string, unknown>>;
    expect(echo.permissionFacts?.({ text: "hi" })).toEqual({ display: '{"text":"hi"}' });
    expect(echo.permissionFacts?.({})).toEqual({});
  });

  it("gives two servers whose names normalise alike prefixes of their own, and names the one renamed", async () => {
    const { servers, warnings } = await connect({
      "my.srv": nodeServer(EDGE_SERVER),
      "my srv": nodeServer(EDGE_SERVER),
    });
    const echoes = servers.tools
      .filter((t) => /^mcp__my_srv(_[0-9a-f]{8})?__echo$/.test(t.name))
      .sort((a, b) => ((a as McpTool).mcp.server < (b as McpTool).mcp.server ? -1 : 1));
    expect(echoes.map((t) => [t.name.startsWith("mcp__my_srv__"), (t as McpTool).mcp.server])).toEqual([
      [true, "my srv"],
      [false, "my.srv"],
    ]);
    expect(warnings).toContain(
      `MCP server "my.srv" would share the tool prefix mcp__my_srv__ with the server "my srv"; its tools are named ${echoes[1]!.name.replace(/echo$/, "")}… (rules for mcp__my_srv do not cover them)`,
    );
  });
});

describe("orphans", () => {
  for (const [how, ending] of [
    ["exits", "process.exit(0);"],
    ["crashes (an uncaught exception)", 'setTimeout(() => { throw new Error("boom"); });'],
  ] as const) {
    it(`a program that ${how} without closing its servers leaves no server process behind`, async () => {
      const dir = tempDir();
      const pidFile = join(dir, "grandchild.pid");
      const script = join(dir, "exits.mjs");
      // The built module (npm test builds first), run by a plain node.
      const module = join(import.meta.dirname, "../../dist/mcp/connect-mcp-servers.js");
      writeFileSync(
        script,
        `import { connectMcpServers } from ${JSON.stringify(module)};
const servers = await connectMcpServers({ edge: { command: process.execPath, args: [${JSON.stringify(EDGE_SERVER)}, "--grandchild", ${JSON.stringify(pidFile)}] } }, { logDir: false });
console.log(servers.status[0].state);
${ending}`,
      );
      const { spawnSync } = await import("node:child_process");
      const out = spawnSync(process.execPath, [script], { encoding: "utf8" });
      expect(out.stdout.trim()).toBe("connected");
      const grandchild = Number(readFileSync(pidFile, "utf8"));
      await waitFor(() => !alive(grandchild), 3000, "the grandchild to be stopped");
    });
  }
});
