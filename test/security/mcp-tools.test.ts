import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { trustFolder } from "../../src/permissions/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import { runMitsuBin } from "./run-bin.js";

// Issue 21, items 9 and 10: MCP tool names that clash across servers (a project's `github.` under the user's
// `mcp__github` rule; three clashing names stopping mitsu), and an MCP server's tool list without a cap (5,001
// tools put 10.4 MB of definitions into every request).

const TOOLS_SERVER = join(import.meta.dirname, "fixtures", "tools-server.mjs");
const server = (...args: string[]) => ({ command: process.execPath, args: [TOOLS_SERVER, ...args] });

function folders() {
  const root = mkdtempSync(join(tmpdir(), "mitsu-mcp-tools-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  const json = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value));
  return { root, cwd, home, json, env: { PATH: process.env.PATH, HOME: home } };
}

async function simulator(script: object[]) {
  const sim = await startSimulator({ script: script as never });
  onTestFinished(() => sim.close());
  return { sim, env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url } };
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const toolNames = (sim: { requests: Array<{ body: { tools: Array<{ name: string }> } }> }) =>
  sim.requests[0]!.body.tools.map((t) => t.name).filter((n) => n.startsWith("mcp__"));

describe("MCP server names", () => {
  it("a project server whose name normalises to the user's (github.) gets a prefix of its own: the user's mcp__github rule does not cover it", async () => {
    const f = folders();
    const calls = join(f.root, "calls");
    f.json(join(f.home, ".mitsu", "mcp.json"), { mcpServers: { github: server("--names", "echo") } });
    f.json(join(f.home, ".mitsu", "settings.json"), { permissions: { allow: ["mcp__github"] } });
    f.json(join(f.cwd, ".mcp.json"), {
      mcpServers: { "github.": server("--names", "delete_repo", "--calls", calls) },
    });
    await trustFolder(f.cwd, { home: f.home });
    expect((await runMitsuBin(["mcp", "approve", "github."], { cwd: f.cwd, env: f.env })).code).toBe(0);
    const { sim, env } = await simulator([
      { content: [{ type: "tool_use", name: "mcp__github__delete_repo", input: {} }] },
      text("Done."),
    ]);
    const run = await runMitsuBin(["-p", "go"], { cwd: f.cwd, env: { ...f.env, ...env } });
    expect(run.code).toBe(0);
    expect(existsSync(calls)).toBe(false);
    const names = toolNames(sim);
    expect(names).toContain("mcp__github__echo");
    const renamed = names.find((n) => n.endsWith("__delete_repo"));
    expect(renamed).toMatch(/^mcp__github_[0-9a-f]{8}__delete_repo$/);
    // The warning names the server that was renamed, and the one that kept the name.
    expect(run.stderr).toContain(
      `MCP server "github." would share the tool prefix mcp__github__ with the server "github"; its tools are named ${renamed!.replace(/delete_repo$/, "")}…`,
    );
  });

  it("three names that clash (one a tool named like another's second name) do not stop mitsu; every name is unique", async () => {
    const f = folders();
    // Today's second name for the tool t of server "s.": the third server's tool takes it first.
    const second = `t_${createHash("sha256").update("s.\u0000t\u0000collision").digest("hex").slice(0, 8)}`;
    const config = join(f.root, "servers.json");
    f.json(config, {
      mcpServers: {
        s: server("--names", "t"),
        "s.": server("--names", "t"),
        ".s": server("--names", second),
      },
    });
    const { sim, env } = await simulator([text("Hi.")]);
    const run = await runMitsuBin(["-p", "--mcp-config", config, "hi"], {
      cwd: f.cwd,
      env: { ...f.env, ...env },
    });
    expect(run.code).toBe(0);
    const names = toolNames(sim);
    expect(names).toHaveLength(3);
    expect(new Set(names).size).toBe(3);
  });
});

describe("an MCP server's tool list", () => {
  it("is capped: 5,001 tools become 500, with a notice naming the server and how many were left out", async () => {
    const f = folders();
    const config = join(f.root, "servers.json");
    f.json(config, { mcpServers: { many: server("--count", "5001") } });
    const { sim, env } = await simulator([text("Hi.")]);
    const run = await runMitsuBin(["-p", "--mcp-config", config, "hi"], {
      cwd: f.cwd,
      env: { ...f.env, ...env },
    });
    expect(run.code).toBe(0);
    expect(toolNames(sim)).toHaveLength(500);
    expect(run.stderr).toContain(
      'MCP server "many" lists 5,001 tools; 4,501 were left out (at most 500 tools of one server are sent to the model)',
    );
  });

  /**
   * `mitsu -p hi` with 3 servers × 60 tools × ~2.2 KB (descriptions are cut at 2,048 characters): well over 256 KiB
   * of definitions.
   */
  async function threeLargeServers(extraEnv: Record<string, string> = {}) {
    const f = folders();
    const config = join(f.root, "servers.json");
    f.json(config, {
      mcpServers: {
        a: server("--count", "60", "--pad", "4000"),
        b: server("--count", "60", "--pad", "4000"),
        c: server("--count", "60", "--pad", "4000"),
      },
    });
    const { sim, env } = await simulator([text("Hi.")]);
    const run = await runMitsuBin(["-p", "--mcp-config", config, "hi"], {
      cwd: f.cwd,
      env: { ...f.env, ...env, ...extraEnv },
    });
    return { sim, run };
  }

  it("all MCP tool definitions together are capped in bytes, the notice naming each server that lost tools", async () => {
    // Tools sent as definitions (ToolSearch's deferral, which would send none of them, is off here).
    const { sim, run } = await threeLargeServers({ MITSU_TOOL_SEARCH: "false" });
    expect(run.code).toBe(0);
    const sent = sim.requests[0]!.body.tools.filter((t: { name: string }) => t.name.startsWith("mcp__"));
    expect(JSON.stringify(sent).length).toBeLessThanOrEqual(256 * 1024);
    expect(sent.length).toBeGreaterThan(60);
    expect(run.stderr).toMatch(
      /MCP server "c" lists 60 tools; \d+ were left out \(the MCP tool definitions are capped at 256 KiB in all\)/,
    );
    expect(run.stderr).not.toContain('MCP server "a" lists');
  });

  it("with ToolSearch on (the default), the byte cap does not cut tools: over a share of the window they are deferred, never sent, and all findable", async () => {
    const { sim, run } = await threeLargeServers();
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("capped at");
    const first = sim.requests[0]!.body;
    const names = first.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("ToolSearch");
    expect(names.filter((n: string) => n.startsWith("mcp__"))).toEqual([]);
    // Every server's last tool is listed for ToolSearch: none was cut.
    const listed = JSON.stringify(first.messages);
    for (const part of ["a", "b", "c"]) expect(listed).toContain(`mcp__${part}__tool_59`);
  });
});
