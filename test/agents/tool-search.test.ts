import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import type { SimTurn } from "../../src/simulator/types.js";
import { cleanDirs, codingAgentOn, drain, PROVIDERS } from "./agents-support.js";

const SERVER = join(import.meta.dirname, "many-tools-server.mjs");
const COUNT = 2000;
const TARGET = "mcp__many__tool_1234_archive_ticket";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  cleanDirs();
});
const figures: string[] = [];
afterAll(() => console.log(figures.join("\n")));

const mcp = () => ({
  mcp: {
    configFiles: [JSON.stringify({ mcpServers: { many: { command: process.execPath, args: [SERVER] } } })],
    strict: true,
  },
  allowedTools: ["mcp__many"],
  session: { log: false as const },
  // Main's per-server and per-request caps on MCP tools (500 tools, 256 KiB) would cut the 2,000 before deferral.
  env: { MITSU_MCP_MAX_TOOLS: "10000", MITSU_MCP_MAX_TOOL_BYTES: "100000000" },
});
const turn = (content: SimTurn["content"]): SimTurn => ({ content });
const size = (i: number) => JSON.stringify(sim!.requests[i]!.body).length;
const toolNames = (body: Record<string, unknown>): string[] => {
  // Anthropic tools[].name; OpenAI Responses tools[].name; Gemini tools[].functionDeclarations[].name.
  const tools = (body.tools ?? []) as Array<Record<string, unknown>>;
  return tools.flatMap((t) => {
    const declarations = (t.functionDeclarations ?? t.function_declarations) as
      | Array<{ name: string }>
      | undefined;
    if (declarations) return declarations.map((d) => d.name);
    const fn = t.function as { name?: string } | undefined;
    return [String(t.name ?? fn?.name)];
  });
};
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

describe.each(PROVIDERS)("2,000 MCP tools on %s", (name, model) => {
  it("are deferred: listed once in the first user message, found with ToolSearch, called by name; every request extends the previous one", async () => {
    sim = await startSimulator({
      script: [
        turn([
          {
            type: "tool_use",
            id: "call_s",
            name: "ToolSearch",
            input: { query: "archive ticket system 1234" },
          },
        ]),
        turn([
          { type: "tool_use", id: "call_ok", name: TARGET, input: { id: "TIC-1" } },
          { type: "tool_use", id: "call_bad", name: TARGET, input: { record: 1 } },
        ]),
        turn([{ type: "text", text: "Archived TIC-1." }]),
        turn([{ type: "text", text: "Yes." }]),
      ],
    });
    const { agent } = await codingAgentOn(sim, model, mcp());
    const { events, result } = await drain(agent.prompt("archive ticket TIC-1 in system 1234"));
    expect(result.reason).toBe("end_turn");
    await drain(agent.prompt("done?"));
    expect(sim.requests.map((r) => r.status)).toEqual([200, 200, 200, 200]);

    // The tools sent: the built-ins and ToolSearch, never an MCP tool's definition, identical in every request.
    const first = sim.requests[0]!.body as Record<string, unknown>;
    const names = toolNames(first);
    expect(names).toContain("ToolSearch");
    expect(names.some((n) => n.startsWith("mcp__many__"))).toBe(false);
    const toolsJson = JSON.stringify(first.tools);
    for (const r of sim.requests)
      expect(JSON.stringify((r.body as Record<string, unknown>).tools)).toBe(toolsJson);

    // The listing: in the first request, once; every tool by name with its one-line description.
    const firstText = JSON.stringify(first);
    expect(firstText.split("mcp__many__tool_").length - 1).toBe(COUNT);
    // With their one-line descriptions when those fit in 5% of the window (Gemini's 1M); else the names alone
    // (2,000 descriptions would take 9% of a 200k window themselves).
    const described = firstText.includes(`${TARGET}: Archives a ticket record in business system 1234.`);
    const bare = firstText.includes(`\\n${TARGET}\\n`) && firstText.includes("Names only");
    expect(described || bare).toBe(true);
    expect(described).toBe(name === "gemini");
    const last = JSON.stringify(sim.requests[3]!.body);
    expect(last.split("These tools are available but not loaded").length - 1).toBe(1);

    // ToolSearch returned the tool's schema; the call ran; a call that breaks the schema did not.
    const ends = events.flatMap((e) => (e.type === "tool-call-end" ? [e] : []));
    const search = ends.find((e) => e.block.name === "ToolSearch")!;
    expect(JSON.stringify(search.result.content)).toContain(`\\"name\\": \\"${TARGET}\\"`);
    expect(JSON.stringify(search.result.content)).toContain("input_schema");
    // (Gemini's calls carry no ids of their own: found by input.)
    const ok = ends.find((e) => e.block.name === TARGET && e.block.input.id === "TIC-1")!;
    expect(ok.result.is_error).toBeFalsy();
    expect(JSON.stringify(ok.result.content)).toContain("tool_1234_archive_ticket ran with");
    const bad = ends.find((e) => e.block.name === TARGET && e.block.input.record === 1)!;
    expect(bad.result.is_error).toBe(true);

    // Cache: each request's prefix is the one before it (as the simulator counts cached tokens).
    const usage = sim.requests.map((r) => r.usage!);
    const inputOf = (u: (typeof usage)[number]) =>
      u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    const later = usage.slice(1);
    const read = later.reduce((n, u) => n + (u.cache_read_input_tokens ?? 0), 0);
    const total = later.reduce((n, u) => n + inputOf(u), 0);
    for (const [i, u] of later.entries()) {
      // Everything up to the previous request's end is read from the cache.
      expect(u.cache_read_input_tokens ?? 0).toBeGreaterThanOrEqual(Math.floor(inputOf(usage[i]!) * 0.9));
    }
    figures.push(
      `[${name}] deferred: first request ${kb(size(0))} (${inputOf(usage[0]!).toLocaleString("en-US")} tokens); requests 2-4 read ${((100 * read) / total).toFixed(1)}% of their input from the cache (${read.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} tokens)`,
    );
    await agent.close();
  }, 60_000);

  it("without deferral (MITSU_TOOL_SEARCH=false) every definition is sent", async () => {
    // Previewed, not sent: 470,000 tokens of definitions do not fit a 200k window (a request checked against the
    // window before it is sent would be refused).
    sim = await startSimulator({ script: [] });
    const { agent } = await codingAgentOn(sim, model, { ...mcp(), toolSearchOff: true });
    const request = await agent.previewRequest("hi");
    const names = request.tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith("mcp__many__"))).toHaveLength(COUNT);
    expect(names).not.toContain("ToolSearch");
    const deferred = await codingAgentOn(sim, model, mcp());
    const small = await deferred.agent.previewRequest("hi");
    expect(small.tools.some((t) => t.name.startsWith("mcp__"))).toBe(false);
    figures.push(
      `[${name}] the first request's tools: ${kb(JSON.stringify(request.tools).length)} without deferral, ${kb(JSON.stringify(small.tools).length)} with it`,
    );
    await agent.close();
    await deferred.agent.close();
  }, 60_000);
});

describe("deferred tools in a new conversation", () => {
  it("MITSU_TOOL_SEARCH=true defers even a few tools; /clear's new conversation gets the listing again", async () => {
    sim = await startSimulator({
      script: [turn([{ type: "text", text: "One." }]), turn([{ type: "text", text: "Two." }])],
    });
    const config = JSON.stringify({
      mcpServers: { many: { command: process.execPath, args: [SERVER, "--count", "5"] } },
    });
    const { agent } = await codingAgentOn(sim, "anthropic:claude-sonnet-4-5", {
      mcp: { configFiles: [config], strict: true },
      session: { log: false },
      env: { MITSU_TOOL_SEARCH: "true" },
    });
    await drain(agent.prompt("one"));
    await agent.clear();
    await drain(agent.prompt("two"));
    for (const r of sim.requests) {
      const body = JSON.stringify(r.body);
      expect(body.split("These tools are available but not loaded").length - 1).toBe(1);
      expect(body).toContain(
        "mcp__many__tool_0004_create_warehouse: Creates a warehouse record in business system 4.",
      );
    }
    await agent.close();
  });
});
