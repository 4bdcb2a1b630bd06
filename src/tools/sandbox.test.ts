import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createBashTool } from "./bash-tool.js";
import { checkSandbox, SandboxUnavailableError, sandboxCommand } from "./sandbox.js";

// These tests need bubblewrap (`.ci/run` installs it). Without it they fail, loudly: a sandbox that silently
// did nothing would be worse than none.
let base: string;
let work: string;
let outside: string;
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t",
  state: new ToolState(),
  agentPath: [],
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-sandbox-")));
  work = join(base, "work");
  outside = join(base, "outside");
  await mkdir(work);
  await mkdir(outside);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const bash = (allowNetwork = false) =>
  createBashTool({
    cwd: work,
    outputDir: join(base, "out"),
    env: { PATH: process.env.PATH, HOME: homedir() },
    sandbox: { writableRoots: [work], allowNetwork },
  });

async function result(command: string, allowNetwork = false): Promise<string> {
  const out = await bash(allowNetwork).run({ command }, context());
  return typeof out === "string" ? out : String((out as { content: unknown }).content);
}

describe("the Bash sandbox (bubblewrap)", () => {
  it("starts here", async () => {
    await expect(checkSandbox({ cwd: work, writableRoots: [work] })).resolves.toBeUndefined();
  });

  it("lets a command write in the workspace, and not outside it", async () => {
    const out = await result(`echo inside > in.txt && echo ok; echo escape > ${outside}/x.txt; echo "rc=$?"`);
    expect(out).toContain("ok");
    // /tmp is private to the sandbox: a folder outside the workspace there is not even visible.
    expect(out).toMatch(/Read-only file system|No such file or directory/);
    expect(out).toContain("rc=1");
    expect(await readFile(join(work, "in.txt"), "utf8")).toBe("inside\n");
    await expect(readFile(join(outside, "x.txt"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("keeps the home folder and the workspace's .git/hooks and .mitsu read-only", async () => {
    await mkdir(join(work, ".git", "hooks"), { recursive: true });
    await mkdir(join(work, ".mitsu"));
    const out = await result(
      'echo x > .git/hooks/pre-commit; echo "hooks=$?"; echo x > .mitsu/settings.json; echo "mitsu=$?"; touch "$HOME/.mitsu-sandbox-probe"; echo "home=$?"',
    );
    expect(out).toContain("hooks=1");
    expect(out).toContain("mitsu=1");
    expect(out).toContain("home=1");
  });

  it("has no network unless it is allowed", async () => {
    const server = createServer((_req, res) => res.end("reached"));
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const port = (server.address() as AddressInfo).port;
    try {
      const probe = `node -e 'fetch("http://127.0.0.1:${port}").then(r=>r.text()).then(t=>console.log("net:"+t),e=>console.log("net-error:"+(e.cause?.code??e.message)))'`;
      expect(await result(probe)).toContain("net-error:");
      expect(await result(probe, true)).toContain("net:reached");
    } finally {
      server.close();
    }
  });

  it("says clearly when bubblewrap is missing, instead of running unconfined", async () => {
    const missing = { cwd: work, writableRoots: [work], bwrap: join(base, "no-such-bwrap") };
    await expect(checkSandbox(missing)).rejects.toThrow(SandboxUnavailableError);
    await expect(checkSandbox(missing)).rejects.toThrow(/bubblewrap .* is not installed/);
    const tool = createBashTool({
      cwd: work,
      outputDir: join(base, "out"),
      sandbox: { writableRoots: [work], bwrap: missing.bwrap },
    });
    await writeFile(join(work, "keep.txt"), "kept");
    await expect(tool.run({ command: "rm keep.txt" }, context())).rejects.toThrow(/Cannot run the command/);
    expect(await readFile(join(work, "keep.txt"), "utf8")).toBe("kept");
  });

  it("builds the bwrap command line it documents", () => {
    const { file, args } = sandboxCommand("bash", "ls", work, { writableRoots: [work] });
    expect(file).toBe("bwrap");
    expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"]);
    expect(args).toContain("--unshare-net");
    expect(args.slice(-4)).toEqual(["--", "bash", "-c", "ls"]);
    expect(
      sandboxCommand("bash", "ls", work, { writableRoots: [work], allowNetwork: true }).args,
    ).not.toContain("--unshare-net");
  });
});
