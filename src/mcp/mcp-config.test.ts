import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addServerToFile, removeServerFromFile } from "./edit-mcp-config.js";
import { expandServerConfig, variablesUsed } from "./expand-server-config.js";
import { loadMcpConfig } from "./load-mcp-config.js";
import { mcpServerPart, mcpToolName } from "./mcp-tool-name.js";
import { parseMcpConfig } from "./parse-mcp-config.js";

/** `${NAME}` as written in a configuration. */
const v = (name: string) => `$${"{"}${name}}`;

function folders() {
  const root = mkdtempSync(join(tmpdir(), "mitsu-mcp-config-"));
  const cwd = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  mkdirSync(cwd);
  return { root, cwd, home };
}

describe("parseMcpConfig", () => {
  it("reads Claude Code's .mcp.json shapes: stdio, http (also streamable-http, or a bare url) and sse", () => {
    const parsed = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          a: { command: "npx", args: ["-y", "pkg"], env: { K: "v" } },
          b: { type: "http", url: "https://x/mcp", headers: { Authorization: "Bearer t" } },
          c: { type: "streamable-http", url: "https://y/mcp" },
          d: { url: "https://z/mcp" },
          e: { type: "sse", url: "https://w/sse" },
        },
      }),
      "/p/.mcp.json",
    );
    expect(Object.fromEntries(parsed.servers)).toEqual({
      a: { type: "stdio", command: "npx", args: ["-y", "pkg"], env: { K: "v" } },
      b: { type: "http", url: "https://x/mcp", headers: { Authorization: "Bearer t" } },
      c: { type: "http", url: "https://y/mcp", headers: {} },
      d: { type: "http", url: "https://z/mcp", headers: {} },
      e: { type: "sse", url: "https://w/sse", headers: {} },
    });
    expect(parsed.problems).toEqual([]);
  });

  it("skips a wrong entry with a message naming it, and keeps the others", () => {
    const parsed = parseMcpConfig(
      JSON.stringify({
        mcpServers: { good: { command: "x" }, bad: { command: 3 }, odd: { type: "ws", url: "u" } },
      }),
      "/p/.mcp.json",
    );
    expect([...parsed.servers.keys()]).toEqual(["good"]);
    expect(parsed.problems).toEqual([
      { server: "bad", message: 'MCP server "bad": "command" must be a non-empty string (in /p/.mcp.json)' },
      {
        server: "odd",
        message:
          'MCP server "odd": unknown "type" "ws" (expected "stdio", "http" or "sse") (in /p/.mcp.json)',
      },
    ]);
  });

  it("throws for a file that is not JSON", () => {
    expect(() => parseMcpConfig("{", "/p/.mcp.json")).toThrow(
      /^Invalid JSON in MCP configuration \/p\/.mcp.json/,
    );
  });
});

describe("expandServerConfig", () => {
  it("expands variables with and without defaults in command, args, env, url and headers", () => {
    const env = { HOME: "/home/u", TOKEN: "t0k", EMPTY: "" };
    expect(
      expandServerConfig(
        "s",
        {
          type: "stdio",
          command: `${v("HOME")}/bin/srv`,
          args: [v("PORT:-8080"), v("EMPTY:-d")],
          env: { T: v("TOKEN") },
        },
        env,
      ),
    ).toEqual({ type: "stdio", command: "/home/u/bin/srv", args: ["8080", "d"], env: { T: "t0k" } });
    expect(
      expandServerConfig(
        "s",
        { type: "http", url: `https://h/${v("TOKEN")}`, headers: { Authorization: `Bearer ${v("TOKEN")}` } },
        env,
      ),
    ).toEqual({ type: "http", url: "https://h/t0k", headers: { Authorization: "Bearer t0k" } });
  });

  it("names every missing variable and where it is used", () => {
    expect(() =>
      expandServerConfig("gh", { type: "http", url: `https://h/${v("A")}`, headers: { X: v("B") } }, {}),
    ).toThrow(
      'MCP server "gh" cannot start: the environment variables A (in url), B (in headers.X) are not set and have no default',
    );
  });

  it("lists the variables a configuration uses (for the approval question)", () => {
    expect(
      variablesUsed({ type: "stdio", command: "x", args: [v("ANTHROPIC_API_KEY")], env: { A: v("B:-c") } }),
    ).toEqual(["ANTHROPIC_API_KEY", "B"]);
  });
});

describe("tool names", () => {
  it("match every provider's pattern, keep mcp__<server>__, and shorten deterministically", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    expect(mcpToolName("my server.v2", "do/it now")).toBe("mcp__my_server_v2__do_it_now");
    const long = mcpToolName("srv", "t".repeat(100));
    expect(long).toHaveLength(64);
    expect(long.startsWith("mcp__srv__ttt")).toBe(true);
    expect(mcpToolName("srv", "t".repeat(100))).toBe(long);
    expect(mcpToolName("srv", `${"t".repeat(99)}u`)).not.toBe(long);
  });

  it("never leave __ inside the server part, so mcp__a cannot cover the tools of a server a__b", () => {
    expect(mcpServerPart("a__b")).toBe("a_b");
    expect(mcpServerPart("_x_")).toBe("x");
    expect(mcpServerPart("...")).toMatch(/^server_[0-9a-f]{8}$/);
    expect(mcpServerPart("a".repeat(40))).toMatch(/^a{15}_[0-9a-f]{8}$/);
  });
});

describe("loadMcpConfig", () => {
  it("reads the user's, the project's and --mcp-config servers; the command line wins, then the project", async () => {
    const { cwd, home } = folders();
    writeFileSync(
      join(home, ".mitsu", "mcp.json"),
      JSON.stringify({ mcpServers: { shared: { command: "user" }, mine: { command: "u" } } }),
    );
    writeFileSync(
      join(cwd, ".mcp.json"),
      JSON.stringify({ mcpServers: { shared: { command: "project" }, repo: { command: "r" } } }),
    );
    writeFileSync(join(cwd, "extra.json"), JSON.stringify({ mcpServers: { cli: { command: "c" } } }));
    const loaded = await loadMcpConfig({
      cwd,
      home,
      configFiles: ["extra.json", '{"mcpServers": {"inline": {"url": "http://x"}}}'],
    });
    expect(
      loaded.servers.map((s) => [
        s.name,
        s.scope,
        s.config.type === "stdio" ? s.config.command : s.config.url,
      ]),
    ).toEqual([
      ["cli", "cli", "c"],
      ["inline", "cli", "http://x"],
      ["mine", "user", "u"],
      ["repo", "project", "r"],
      ["shared", "project", "project"],
    ]);
    expect(loaded.shadowed.map((s) => [s.name, s.scope])).toEqual([["shared", "user"]]);
    const strict = await loadMcpConfig({ cwd, home, configFiles: ["extra.json"], strict: true });
    expect(strict.servers.map((s) => s.name)).toEqual(["cli"]);
  });

  it("reports a broken project file as a problem; a --mcp-config that cannot be read is an error", async () => {
    const { cwd, home } = folders();
    writeFileSync(join(cwd, ".mcp.json"), "not json");
    const loaded = await loadMcpConfig({ cwd, home });
    expect(loaded.problems[0]!.message).toMatch(/^Invalid JSON in MCP configuration .*\.mcp\.json/);
    await expect(loadMcpConfig({ cwd, home, configFiles: ["missing.json"] })).rejects.toThrow(
      /Cannot read the MCP configuration .*missing\.json \(--mcp-config\)/,
    );
  });
});

describe("editing a configuration file", () => {
  it("adds and removes servers, keeping what else the file holds", async () => {
    const { cwd } = folders();
    const file = join(cwd, ".mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { old: { command: "o" } }, other: 1 }));
    await addServerToFile(file, "new", { type: "stdio", command: "npx", args: ["-y", "x"], env: {} });
    await addServerToFile(file, "web", { type: "http", url: "https://h/mcp", headers: {} });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      mcpServers: {
        old: { command: "o" },
        new: { command: "npx", args: ["-y", "x"] },
        web: { type: "http", url: "https://h/mcp" },
      },
      other: 1,
    });
    expect(await removeServerFromFile(file, "old")).toBe(true);
    expect(await removeServerFromFile(file, "old")).toBe(false);
    expect(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers)).toEqual(["new", "web"]);
  });
});

describe("printable", () => {
  it("keeps a repository's escape sequences off the terminal (an approval question cannot be rewritten)", async () => {
    const { printable } = await import("./printable.js");
    expect(printable("evil\u001b[2J\u001b[1Aok\r\n\ttab\u009b")).toBe("evil?[2J?[1Aok?\n\ttab?");
  });
});
