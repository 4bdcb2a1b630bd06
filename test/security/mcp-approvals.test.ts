import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { trustFolder } from "../../src/permissions/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import { EDGE_SERVER } from "../mcp/mcp-fixtures.js";
import { runMitsuBin } from "./run-bin.js";

// Issue 21, item 4: a project's MCP servers started without the user's own approval — approvals shipped in a
// folder that is not a git repository, or in a tracked file when git fails ("dubious ownership"); an approval that
// held after a pull changed only what `${VAR}` expands to; `mitsu mcp list` spawning an untrusted folder's servers.

const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

/**
 * A project whose `.mcp.json` has a server `repo` that leaves a marker when it starts (then serves the edge
 * server's tools), and a home. `args` replace the server's arguments.
 */
function project(options: { git?: boolean } = {}) {
  const root = mkdtempSync(join(tmpdir(), "mitsu-mcp-approvals-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "repo");
  const home = join(root, "home");
  const bin = join(root, "bin");
  for (const dir of [cwd, home, bin, join(cwd, ".mitsu")]) mkdirSync(dir, { recursive: true });
  if (options.git) execFileSync(realGit, ["init", "-q"], { cwd });
  const marker = join(root, "server-started");
  writeFileSync(join(cwd, "start.sh"), `touch '${marker}'\nexec '${process.execPath}' '${EDGE_SERVER}'\n`);
  const setServer = (args: string[]) =>
    writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { repo: { command: "sh", args } } }));
  setServer(["start.sh"]);
  return {
    root,
    cwd,
    home,
    bin,
    marker,
    setServer,
    started: () => existsSync(marker),
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: home },
  };
}

async function simulator() {
  const sim = await startSimulator({ script: [{ content: [{ type: "text", text: "Hi." }] }] });
  onTestFinished(() => sim.close());
  return { sim, env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url } };
}

const approvingLocalFile = (cwd: string) =>
  writeFileSync(
    join(cwd, ".mitsu", "settings.local.json"),
    JSON.stringify({ enabledMcpjsonServers: ["repo"], enableAllProjectMcpServers: true }),
  );

describe("a project's MCP server approvals come from the user only", () => {
  it("a folder that is not a git repository and ships settings.local.json approving its server does not start it", async () => {
    const p = project();
    approvingLocalFile(p.cwd);
    const { sim, env } = await simulator();
    const run = await runMitsuBin(["-p", "--trust", "hi"], { cwd: p.cwd, env: { ...p.env, ...env } });
    expect(run.code).toBe(0);
    expect(p.started()).toBe(false);
    expect(JSON.stringify(sim.requests[0]?.body.tools)).not.toContain("mcp__repo");
    expect(run.stderr).toContain('The MCP server "repo"');
    expect(run.stderr).toContain("has not been approved");
  });

  it("a tracked settings.local.json is not trusted when git fails (dubious ownership): it never was an approval", async () => {
    const p = project({ git: true });
    approvingLocalFile(p.cwd);
    execFileSync(realGit, ["add", "-f", ".mitsu/settings.local.json"], { cwd: p.cwd });
    // git refuses the repository as another user's would be refused.
    writeFileSync(
      join(p.bin, "git"),
      `#!/bin/sh\necho "fatal: detected dubious ownership in repository at '$PWD'" >&2\nexit 128\n`,
    );
    chmodSync(join(p.bin, "git"), 0o755);
    const { env } = await simulator();
    const run = await runMitsuBin(["-p", "--trust", "hi"], { cwd: p.cwd, env: { ...p.env, ...env } });
    expect(run.code).toBe(0);
    expect(p.started()).toBe(false);
  });

  // A variable named like a credential is left unexpanded in the fingerprint (a rotated token must not re-ask),
  // unless the project's own settings set it.
  it.each(["SERVER_SCRIPT", "SERVER_TOKEN"])(
    "an approval is of the expanded command line: a pull that changes only the settings env (%s) asks again",
    async (variable) => {
      const p = project({ git: true });
      writeFileSync(join(p.cwd, "evil.sh"), `touch '${p.root}/evil-ran'\n`);
      p.setServer([`\${${variable}:-start.sh}`]);
      await trustFolder(p.cwd, { home: p.home });
      const approve = await runMitsuBin(["mcp", "approve", "repo"], { cwd: p.cwd, env: p.env });
      expect(approve.code).toBe(0);
      const { sim, env } = await simulator();
      // A pull changes only the project's settings env.
      writeFileSync(
        join(p.cwd, ".mitsu", "settings.json"),
        JSON.stringify({ env: { [variable]: "evil.sh" } }),
      );
      const run = await runMitsuBin(["-p", "hi"], { cwd: p.cwd, env: { ...p.env, ...env } });
      expect(run.code).toBe(0);
      expect(existsSync(join(p.root, "evil-ran"))).toBe(false);
      expect(run.stderr).toContain('MCP server "repo"');
      expect(run.stderr).toContain("changed since you approved it");
      expect(JSON.stringify(sim.requests[0]?.body.tools)).not.toContain("mcp__repo");
    },
  );

  it("the approval is kept in the user's ~/.mitsu, not in a file inside the repository", async () => {
    const p = project();
    const approve = await runMitsuBin(["mcp", "approve", "repo"], { cwd: p.cwd, env: p.env });
    expect(approve.code).toBe(0);
    expect(approve.stdout).toContain(join(p.home, ".mitsu", "mcp-approvals.json"));
    expect(existsSync(join(p.cwd, ".mitsu", "settings.local.json"))).toBe(false);
    const { sim, env } = await simulator();
    const run = await runMitsuBin(["-p", "--trust", "hi"], { cwd: p.cwd, env: { ...p.env, ...env } });
    expect(run.stderr).toBe("");
    expect(p.started()).toBe(true);
    expect(JSON.stringify(sim.requests[0]?.body.tools)).toContain("mcp__repo__echo");
  });
});

describe("mitsu mcp list", () => {
  it("reports an untrusted folder's approved server as not trusted, without starting it", async () => {
    const p = project();
    expect((await runMitsuBin(["mcp", "approve", "repo"], { cwd: p.cwd, env: p.env })).code).toBe(0);
    const list = await runMitsuBin(["mcp", "list"], { cwd: p.cwd, env: p.env });
    expect(list.code).toBe(0);
    expect(p.started()).toBe(false);
    expect(list.stdout).toMatch(/^repo +stdio +project +not started: this folder is not trusted/m);
  });
});
