import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { trustFolder } from "../../src/permissions/index.js";
import type { Simulator, SimulatorOptions } from "../../src/simulator/index.js";
import { EDGE_SERVER, freePort } from "../mcp/mcp-fixtures.js";
import { VirtualScreen } from "../support/virtual-screen.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const call = (name: string, input: Record<string, unknown>) => ({
  content: [{ type: "tool_use" as const, name, input }],
});
const edge = (...args: string[]) => ({ command: process.execPath, args: [EDGE_SERVER, ...args] });

function writeJson(file: string, value: unknown) {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

/** The tool results of the last request the simulator got. */
function lastResults(s: Simulator): Array<{ content: unknown; is_error?: boolean }> {
  const messages = s.requests.at(-1)!.body.messages;
  return messages.at(-1).content.filter((b: { type: string }) => b.type === "tool_result");
}

async function setup(options: SimulatorOptions) {
  const s = await simulatorEnv(options);
  sim = s.sim;
  return { ...tempWorkspace(), env: s.env, sim: s.sim };
}

describe("mitsu -p with MCP servers", () => {
  it("--mcp-config: the model calls an MCP tool allowed by --allowedTools; its tools follow the built-ins", async () => {
    const t = await setup({ script: [call("mcp__edge__echo", { text: "ping" }), text("Echoed.")] });
    const config = join(t.root, "servers.json");
    writeJson(config, { mcpServers: { edge: edge() } });
    const r = await runMitsu(["-p", "--mcp-config", config, "--allowedTools", "mcp__edge", "say ping"], t);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Echoed.");
    expect(lastResults(t.sim)[0]).toMatchObject({ content: "ping" });
    const names: string[] = t.sim.requests[0]!.body.tools.map((tool: { name: string }) => tool.name);
    const firstMcp = names.findIndex((n) => n.startsWith("mcp__"));
    expect(names.indexOf("Skill")).toBeLessThan(firstMcp);
    expect(names.slice(firstMcp, -2)).toEqual([...names.slice(firstMcp, -2)].sort());
  });

  it("without a rule an MCP call is asked, so print mode denies it and says how to allow it", async () => {
    const t = await setup({ script: [call("mcp__edge__echo", { text: "x" }), text("Denied.")] });
    writeJson(join(t.home, ".mitsu", "mcp.json"), { mcpServers: { edge: edge() } });
    const r = await runMitsu(["-p", "go"], t);
    expect(r.code).toBe(0);
    const [result] = lastResults(t.sim);
    expect(result!.is_error).toBe(true);
    expect(String(result!.content)).toContain('To allow it, add "mcp__edge__echo" to permissions.allow');
  });

  it("a project's .mcp.json server starts only in a trusted folder and once approved; print mode says which step is missing", async () => {
    const t = await setup({
      script: [text("Untrusted."), text("Still untrusted."), text("No tools."), text("With tools.")],
    });
    writeJson(join(t.cwd, ".mcp.json"), { mcpServers: { repo: edge() } });
    const untrusted = await runMitsu(["-p", "hi"], t);
    expect(untrusted.stderr).toContain("This folder is not trusted");
    expect(untrusted.stderr).toContain(`MCP server "repo" in ${join(t.cwd, ".mcp.json")}`);
    await runMitsu(["mcp", "approve", "repo"], t);
    // Approved, but the folder is still not trusted: nothing starts.
    await runMitsu(["-p", "hi"], t);
    expect(JSON.stringify(t.sim.requests[1]!.body.tools)).not.toContain("mcp__repo");
    // The approval is the user's, in ~/.mitsu: forgotten, the server waits for one again.
    rmSync(join(t.home, ".mitsu", "mcp-approvals.json"));
    const first = await runMitsu(["-p", "--trust", "hi"], t);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(
      'The MCP server "repo" of ' +
        join(t.cwd, ".mcp.json") +
        " was not started: it has not been approved for this project. Approve it with `mitsu mcp approve repo`",
    );
    expect(JSON.stringify(t.sim.requests[2]!.body.tools)).not.toContain("mcp__repo");
    expect(first.stderr).not.toContain("not trusted");

    const approve = await runMitsu(["mcp", "approve", "repo"], t);
    expect(approve).toMatchObject({
      code: 0,
      stdout: `Approved the project MCP server "repo" (kept in ${join(t.home, ".mitsu", "mcp-approvals.json")}).\n`,
    });
    const second = await runMitsu(["-p", "--trust", "hi"], t);
    expect(second.stderr).toBe("");
    expect(JSON.stringify(t.sim.requests[3]!.body.tools)).toContain("mcp__repo__echo");
  });

  it("an approved project server whose .mcp.json entry changed (a pull) does not start until approved again", async () => {
    const t = await setup({ script: [text("With tools."), text("Changed."), text("Approved again.")] });
    writeJson(join(t.cwd, ".mcp.json"), { mcpServers: { repo: edge() } });
    await runMitsu(["mcp", "approve", "repo"], t);
    const approved = await runMitsu(["-p", "--trust", "hi"], t);
    expect(approved.stderr).toBe("");
    expect(JSON.stringify(t.sim.requests[0]!.body.tools)).toContain("mcp__repo__echo");
    // Same name, other command: what was approved is not what would run.
    writeJson(join(t.cwd, ".mcp.json"), {
      mcpServers: { repo: { ...edge(), args: [...edge().args, "--x"] } },
    });
    const changed = await runMitsu(["-p", "--trust", "hi"], t);
    expect(changed.stderr).toContain(
      `MCP server "repo" in ${join(t.cwd, ".mcp.json")} changed since you approved it`,
    );
    expect(JSON.stringify(t.sim.requests[1]!.body.tools)).not.toContain("mcp__repo");
    await runMitsu(["mcp", "approve", "repo"], t);
    const again = await runMitsu(["-p", "--trust", "hi"], t);
    expect(again.stderr).toBe("");
    expect(JSON.stringify(t.sim.requests[2]!.body.tools)).toContain("mcp__repo__echo");
  });

  it("--strict-mcp-config uses only the given servers", async () => {
    const t = await setup({ script: [text("ok")] });
    writeJson(join(t.home, ".mitsu", "mcp.json"), { mcpServers: { user: edge() } });
    const config = join(t.root, "only.json");
    writeJson(config, { mcpServers: { only: edge("--prefix", "o_") } });
    await runMitsu(["-p", "--mcp-config", config, "--strict-mcp-config", "hi"], t);
    const names = JSON.stringify(t.sim.requests[0]!.body.tools);
    expect(names).toContain("mcp__only__o_echo");
    expect(names).not.toContain("mcp__user__");
  });

  it("a server that fails is reported once on stderr, and the run goes on with the others", async () => {
    const t = await setup({ script: [text("Fine.")] });
    writeJson(join(t.home, ".mitsu", "mcp.json"), {
      mcpServers: { good: edge(), bad: { command: "/nonexistent/server" } },
    });
    const r = await runMitsu(["-p", "hi"], t);
    expect(r.code).toBe(0);
    expect(r.stderr.split("\n").filter((l) => l.includes('"bad"'))).toEqual([
      '⚠ MCP server "bad" failed to start, so its tools are not available: command not found: /nonexistent/server',
    ]);
    expect(JSON.stringify(t.sim.requests[0]!.body.tools)).toContain("mcp__good__echo");
  });

  it("an MCP prompt is a slash command: expanded by the server, with no model call for it", async () => {
    const t = await setup({ script: [text("Hello, Ada!")] });
    writeJson(join(t.home, ".mitsu", "mcp.json"), { mcpServers: { edge: edge() } });
    const r = await runMitsu(["-p", "/mcp__edge__greet Ada"], t);
    expect(r.code).toBe(0);
    expect(t.sim.requests).toHaveLength(1);
    const content = t.sim.requests[0]!.body.messages[0].content;
    expect(content.at(-1).text).toBe("Say hello to Ada.");
    const help = await runMitsu(["-p", "/help"], t);
    expect(help.stdout).toContain(
      "/mcp__edge__greet  Greets someone. — /mcp__edge__greet <name> [style] (MCP edge)",
    );
  });
});

describe("mitsu mcp", () => {
  it("add, list and remove: a stdio server in the project, an http one for the user", async () => {
    const t = tempWorkspace();
    const add = await runMitsu(
      ["mcp", "add", "edge", "--", process.execPath, EDGE_SERVER, "--page-size", "5"],
      t,
    );
    expect(add.code).toBe(0);
    expect(add.stdout).toContain(
      `Added the stdio MCP server "edge" to ${join(t.cwd, ".mcp.json")} (approved for you`,
    );
    expect(JSON.parse(readFileSync(join(t.cwd, ".mcp.json"), "utf8"))).toEqual({
      mcpServers: { edge: { command: process.execPath, args: [EDGE_SERVER, "--page-size", "5"] } },
    });
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const remote = await runMitsu(
      ["mcp", "add", "--transport", "http", "--scope", "user", "-H", "Authorization: Bearer x", "web", url],
      t,
    );
    expect(remote.code).toBe(0);
    expect(JSON.parse(readFileSync(join(t.home, ".mitsu", "mcp.json"), "utf8"))).toEqual({
      mcpServers: {
        web: { type: "http", url, headers: { Authorization: "Bearer x" } },
      },
    });

    // An untrusted folder's servers are not started by `mcp list` either.
    expect((await runMitsu(["mcp", "list"], t)).stdout).toContain(
      "edge  stdio  project  not started: this folder is not trusted",
    );
    await trustFolder(t.cwd, { home: t.home });
    const list = await runMitsu(["mcp", "list"], t);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split("\n");
    expect(lines[0]).toMatch(
      /^edge {2}stdio {2}project {2}connected {2}13 tools, 1 prompt, resources \(\d+ ms\)$/,
    );
    expect(lines[1]).toMatch(/^web {3}http {3}user {5}failed: .*ECONNREFUSED/);

    expect(await runMitsu(["mcp", "remove", "edge"], t)).toMatchObject({ code: 0 });
    expect(await runMitsu(["mcp", "remove", "edge"], t)).toMatchObject({
      code: 1,
      stderr: 'mitsu: no MCP server named "edge".\n',
    });
  });

  it("list shows a project server that is not approved, and one that was denied", async () => {
    const t = tempWorkspace();
    writeJson(join(t.cwd, ".mcp.json"), { mcpServers: { a: edge(), b: edge() } });
    await runMitsu(["mcp", "deny", "b"], t);
    await trustFolder(t.cwd, { home: t.home });
    const list = await runMitsu(["mcp", "list"], t);
    expect(list.stdout).toContain("a  stdio  project  not approved: approve it with `mitsu mcp approve a`");
    expect(list.stdout).toContain("b  stdio  project  denied (undo with `mitsu mcp approve b`)");
  });

  it("add refuses what cannot work, with a message that says why", async () => {
    const t = tempWorkspace();
    expect((await runMitsu(["mcp", "add", "x"], t)).stderr).toContain("give the command after --");
    expect((await runMitsu(["mcp", "add", "--transport", "http", "x", "not a url"], t)).stderr).toContain(
      "not a URL: not a url",
    );
    expect((await runMitsu(["mcp", "add", "-e", "NOEQUALS", "x", "--", "cmd"], t)).stderr).toContain(
      'malformed "NOEQUALS": write --env KEY=VALUE',
    );
    expect((await runMitsu(["mcp", "approve", "ghost"], t)).stderr).toContain('has no server named "ghost"');
  });
});

/** A keyboard and a screen, as in interactive.test.ts. */
class FakeTty extends PassThrough {
  isTTY = true;
}
class Screen extends VirtualScreen {}

describe("mitsu at a terminal with MCP servers", () => {
  it("asks once about a project server, remembers the answer, shows /mcp, and applies a changed tool list at the next turn", async () => {
    const t = await setup({
      script: [call("mcp__repo__change_tools", {}), text("Changed."), text("Next.")],
    });
    writeJson(join(t.cwd, ".mcp.json"), { mcpServers: { repo: edge() } });
    const keyboard = new FakeTty();
    const screen = new Screen();
    const errors = new Screen();
    const exit = main(["--allowedTools", "mcp__repo"], {
      stdin: keyboard,
      stdout: screen,
      stderr: errors,
      cwd: t.cwd,
      home: t.home,
      env: { PATH: process.env.PATH, ...t.env },
    });
    await screen.waitFor("Trust this folder?");
    keyboard.write("y\r");
    await screen.waitFor("Start it?");
    expect(screen.text).toContain(`${join(t.cwd, ".mcp.json")} asks to start the MCP server repo`);
    expect(screen.text).toContain(`runs: ${process.execPath} ${EDGE_SERVER}`);
    keyboard.write("y\r");
    await screen.waitFor("/help for commands");
    expect(
      JSON.parse(readFileSync(join(t.home, ".mitsu", "mcp-approvals.json"), "utf8")).projects[t.cwd].repo,
    ).toMatchObject({ decision: "approve" });

    keyboard.write("/mcp\r");
    await screen.waitFor("repo  stdio  project  connected  13 tools");
    keyboard.write("change them\r");
    await screen.waitFor("Changed.");
    keyboard.write("and now\r");
    await screen.waitFor("Next.");
    expect(screen.text).toContain(
      '⚠ the MCP server "repo" changed its tool list (notifications/tools/list_changed): the new tools apply from this message',
    );
    keyboard.write("/exit\r");
    expect(await exit).toBe(0);
    const toolsOf = (i: number) => JSON.stringify(t.sim.requests[i]!.body.tools);
    expect(toolsOf(1)).not.toContain("added_later");
    expect(toolsOf(2)).toContain("mcp__repo__added_later");
    expect(screen.text).toMatch(
      /\(tools\[\d+\] (changed|added)\) because the MCP server "repo" changed its tool list/,
    );
    expect(existsSync(join(t.home, ".mitsu", "mcp-logs", "repo.log"))).toBe(true);
  });
});

describe("mitsu mcp login (OAuth)", () => {
  it("logs in through the browser ($BROWSER), later runs use the stored login, logout forgets it", async () => {
    const { startOAuthMcpServer } = await import("../mcp/oauth-server.js");
    const auth = await startOAuthMcpServer();
    try {
      const t = await setup({ script: [text("Before."), call("mcp__secure__whoami", {}), text("Known.")] });
      writeJson(join(t.home, ".mitsu", "mcp.json"), {
        mcpServers: { secure: { type: "http", url: auth.url } },
      });
      // A "browser" that follows the authorization page's redirect back to mitsu's loopback listener.
      const browser = join(t.root, "browser.mjs");
      writeFileSync(
        browser,
        `#!${process.execPath}\nconst r = await fetch(process.argv[2], { redirect: "manual" });\nawait fetch(r.headers.get("location"));\n`,
        { mode: 0o755 },
      );
      const before = await runMitsu(["-p", "hi"], { ...t, env: { ...t.env } });
      expect(before.stderr).toContain('MCP server "secure" needs a login');
      expect(before.stderr).toContain("run `mitsu mcp login secure`");

      const login = await runMitsu(["mcp", "login", "secure"], { ...t, env: { BROWSER: browser } });
      expect(login.stderr).toBe("");
      expect(login.stdout).toContain('Logged in to the MCP server "secure" (2 tools).');

      const run = await runMitsu(["-p", "--allowedTools", "mcp__secure", "who am I"], t);
      expect(run.stderr).toBe("");
      expect(String(lastResults(t.sim)[0]!.content)).toMatch(/^client /);
      expect(auth.counts.authorizations).toBe(1);

      expect((await runMitsu(["mcp", "logout", "secure"], t)).stdout).toBe(
        'Logged out of the MCP server "secure".\n',
      );
      expect((await runMitsu(["mcp", "list"], t)).stdout).toContain("needs login");
    } finally {
      await auth.close();
    }
  });
});
