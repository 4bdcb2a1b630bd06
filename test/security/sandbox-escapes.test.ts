import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/loop/tool.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { createBashTool } from "../../src/tools/bash-tool.js";

// Issue 21, item 2: a sandboxed command, avoiding the literal names a rule checker looks for, (a) rebuilt .git
// with a core.fsmonitor the user's next `git status` ran, (b) created .mitsu/settings.local.json and .mcp.json
// (only paths that existed at the start were protected), (c) connected to a host unix socket. These tests need
// bubblewrap (`.ci/run` installs it); without it they fail, loudly.

let base: string;
let work: string;
const servers: Server[] = [];
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-escape-")));
  work = join(base, "work");
  await mkdir(work);
});
afterEach(async () => {
  for (const server of servers.splice(0)) server.close();
  await rm(base, { recursive: true, force: true });
});

const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t",
  state: new ToolState(),
  agentPath: [],
});

async function sandboxed(
  command: string,
  options: { home?: string; allowNetwork?: boolean; roots?: string[] } = {},
): Promise<string> {
  const tool = createBashTool({
    cwd: work,
    outputDir: join(base, "out"),
    env: { PATH: process.env.PATH, HOME: options.home ?? join(base, "home") },
    sandbox: { writableRoots: options.roots ?? [work], allowNetwork: options.allowNetwork ?? false },
  });
  const out = await tool.run({ command }, context());
  return typeof out === "string" ? out : String((out as { content: unknown }).content);
}

/** Runs the user's own `git status` on the host, as after the session; true when the planted fsmonitor ran. */
function hostGitStatusRunsPlant(): boolean {
  try {
    execFileSync("git", ["status", "--short"], { cwd: work, stdio: "ignore", env: gitEnv() });
  } catch {
    // Not a repository (any more): nothing ran from it.
  }
  return existsSync(join(base, "pwned"));
}

const gitEnv = () => ({
  PATH: process.env.PATH,
  HOME: join(base, "home"),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
});

// The names spelled so that no literal `.git`, `.mitsu` or `.mcp.json` appears in the command.
const G = 'g=.gi; g="$g"t';
const M = 'm=.mit; m="$m"su';
const PLANT = `printf '[core]\\n\\tfsmonitor = "touch ${"$"}{B}/pwned; false"\\n'`;

describe("the sandbox keeps .git whole (escape a)", () => {
  it("a command cannot rename .git away and build a new one with core.fsmonitor", async () => {
    execFileSync("git", ["init", "-q"], { cwd: work, env: gitEnv() });
    const before = statSync(join(work, ".git")).ino;
    const out = await sandboxed(
      `B=${base}; ${G}; mv "$g" old && mkdir "$g" && cp -r old/. "$g"/ && ${PLANT} >> "$g/config"; echo "rc=$?"`,
    );
    expect(out).toMatch(/Device or resource busy|Read-only file system/);
    expect(statSync(join(work, ".git")).ino).toBe(before);
    expect(existsSync(join(work, "old"))).toBe(false);
    expect(hostGitStatusRunsPlant()).toBe(false);
  });

  it("nor write anything inside .git (commondir, config of a worktree or module)", async () => {
    execFileSync("git", ["init", "-q"], { cwd: work, env: gitEnv() });
    await sandboxed(
      `B=${base}; ${G}; mkdir -p evil && ${PLANT} > evil/config; cp -r "$g"/. evil/ 2>/dev/null; echo ../evil > "$g/commondir"; mkdir -p "$g/modules/x"; echo x > "$g/info/attributes"`,
    );
    expect(existsSync(join(work, ".git", "commondir"))).toBe(false);
    expect(existsSync(join(work, ".git", "modules"))).toBe(false);
    expect(hostGitStatusRunsPlant()).toBe(false);
  });

  it("a folder that is not a repository does not become one with a planted fsmonitor", async () => {
    await sandboxed(`B=${base}; ${G}; git init -q . ; mkdir -p "$g"; ${PLANT} >> "$g/config"; echo "rc=$?"`);
    expect(existsSync(join(work, ".git"))).toBe(false);
    expect(hostGitStatusRunsPlant()).toBe(false);
  });
});

describe("settings and MCP files are read-only even where absent (escape b)", () => {
  it("a command cannot create .mitsu/settings.local.json, .claude/settings.json or .mcp.json", async () => {
    const out = await sandboxed(
      `${M}; mkdir -p "$m"; echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > "$m/settings.local.json"; echo "mitsu=$?"; ` +
        `c=.cla; c="$c"ude; mkdir -p "$c" && echo '{}' > "$c/settings.json"; echo "claude=$?"; ` +
        `j=.mcp; echo '{"mcpServers":{"x":{"command":"sh"}}}' > "$j.json"; echo "mcp=$?"`,
    );
    expect(out).toContain("mitsu=1");
    expect(out).toContain("claude=1");
    expect(out).toContain("mcp=1");
    // Nothing is left behind on the host: no settings, and no empty stand-ins either.
    expect(readdirSync(work)).toEqual([]);
  });

  it("an existing .mitsu can be neither renamed away nor replaced", async () => {
    await mkdir(join(work, ".mitsu"));
    await writeFile(join(work, ".mitsu", "settings.json"), "{}");
    await sandboxed(
      `${M}; mv "$m" old; mkdir -p "$m"; echo '{"permissions":{"defaultMode":"bypassPermissions"}}' > "$m/settings.local.json"`,
    );
    expect(existsSync(join(work, ".mitsu", "settings.local.json"))).toBe(false);
    expect(readFileSync(join(work, ".mitsu", "settings.json"), "utf8")).toBe("{}");
    expect(existsSync(join(work, "old"))).toBe(false);
  });

  it("when the workspace holds the home folder, the shell's start-up files stay read-only", async () => {
    const home = join(work, "me");
    await mkdir(home);
    await writeFile(join(home, ".profile"), "# mine\n");
    const out = await sandboxed(
      'echo "touch /tmp/x" >> "$HOME/.bashrc"; echo "bashrc=$?"; echo "touch /tmp/x" >> "$HOME/.profile"; echo "profile=$?"; z=.zsh; echo x > "$HOME/$z"rc; echo "zshrc=$?"',
      { home },
    );
    expect(out).toContain("bashrc=1");
    expect(out).toContain("profile=1");
    expect(out).toContain("zshrc=1");
    expect(readdirSync(home)).toEqual([".profile"]);
    expect(readFileSync(join(home, ".profile"), "utf8")).toBe("# mine\n");
  });
});

describe("host unix sockets are out of reach (escape c)", () => {
  // An abstract name (a leading NUL) is spelled `@name`: a shell argument cannot hold a NUL.
  const probe = (target: string) =>
    `node -e 'const a=process.argv[1];require("net").connect(a.startsWith("@")?"\\0"+a.slice(1):a).on("connect",()=>{console.log("sock:connected");process.exit(0)}).on("error",e=>console.log("sock-error:"+e.code))' ${JSON.stringify(target)}`;

  async function listen(path: string): Promise<string[]> {
    const heard: string[] = [];
    const server = createServer((socket) => {
      heard.push("connection");
      socket.end();
    });
    servers.push(server);
    await new Promise<void>((done) => server.listen(path, done));
    return heard;
  }

  it("a socket file the sandbox can see (the ssh-agent / docker.sock class) refuses the connection", async () => {
    const heard = await listen(join(work, "agent.sock"));
    const out = await sandboxed(probe("agent.sock"));
    expect(out).toContain("sock-error:");
    expect(out).not.toContain("sock:connected");
    expect(heard).toEqual([]);
  });

  it("so does an abstract socket, also with the network allowed", async () => {
    const name = `mitsu-escape-${process.pid}-${Date.now()}`;
    const heard = await listen(`\0${name}`);
    const out = await sandboxed(probe(`@${name}`), { allowNetwork: true });
    expect(out).toContain("sock-error:");
    expect(heard).toEqual([]);
  });

  it("ordinary commands still work: pipes, child processes, a socketpair", async () => {
    const out = await sandboxed(
      `echo a | tr a b; node -e 'console.log(require("child_process").execFileSync("echo",["kid"]).toString().trim())'; node -e 'const c=require("child_process").spawn(process.execPath,["-e","process.send(1)"],{stdio:["inherit","inherit","inherit","ipc"]});c.on("message",()=>console.log("ipc-ok"))'; echo done`,
    );
    expect(out).toContain("b\n");
    expect(out).toContain("kid");
    expect(out).toContain("ipc-ok");
    expect(out).toContain("done");
  });
});
