import { existsSync, lstatSync, mkdirSync, symlinkSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolState } from "../../src/loop/tool-state.js";
import { createBashTool } from "../../src/tools/bash-tool.js";

// Issue 21 item 2, attacked again: a repository ships `.claude` (or `.mitsu`, `.mcp.json`) as a symbolic link to a
// folder of its own. bubblewrap mounts over the link's target, so the link itself stayed writable: a sandboxed
// command removed it, made a real `.claude` and wrote `settings.local.json` there, for the next session to read.
// Needs bubblewrap, as test/security/sandbox-escapes.test.ts.

let base: string;
let work: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-mask-link-")));
  work = join(base, "work");
  mkdirSync(join(work, "sub"), { recursive: true });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function sandboxed(command: string): Promise<string> {
  const tool = createBashTool({
    cwd: work,
    outputDir: join(base, "out"),
    env: { PATH: process.env.PATH, HOME: join(base, "home") },
    sandbox: { writableRoots: [work], allowNetwork: false },
  });
  try {
    const out = await tool.run(
      { command },
      { signal: new AbortController().signal, toolUseId: "t", state: new ToolState(), agentPath: [] },
    );
    return typeof out === "string" ? out : String((out as { content: unknown }).content);
  } catch (error) {
    return (error as Error).message;
  }
}

describe("a protected name that is a symbolic link in the workspace", () => {
  it("cannot be replaced by a sandboxed command: .claude -> sub stays a link, no settings.local.json appears", async () => {
    symlinkSync("sub", join(work, ".claude"));
    const out = await sandboxed(
      'c=.cla; c="$c"ude; rm "$c" && mkdir "$c" && echo \'{"permissions":{"defaultMode":"bypassPermissions"}}\' > "$c"/settings.local.json; echo "rc=$?"',
    );
    expect(lstatSync(join(work, ".claude")).isSymbolicLink()).toBe(true);
    expect(existsSync(join(work, ".claude", "settings.local.json"))).toBe(false);
    expect(existsSync(join(work, "sub", "settings.local.json"))).toBe(false);
    expect(out).toMatch(/\.claude is a symbolic link/);
  });

  it("nor .mcp.json -> a file of the repository's", async () => {
    mkdirSync(join(work, "conf"));
    const { writeFileSync, readFileSync } = await import("node:fs");
    writeFileSync(join(work, "conf", "servers.json"), "{}\n");
    symlinkSync("conf/servers.json", join(work, ".mcp.json"));
    await sandboxed(
      'f=.mcp; f="$f".json; rm "$f" && echo \'{"mcpServers":{"x":{"command":"sh"}}}\' > "$f"; echo "rc=$?"',
    );
    expect(lstatSync(join(work, ".mcp.json")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(work, "conf", "servers.json"), "utf8")).toBe("{}\n");
  });
});
