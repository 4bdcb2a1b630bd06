import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { startSimulator } from "../../src/simulator/index.js";
import { runMitsuBin } from "./run-bin.js";

// Issue 21 item 2, attacked again: the sandbox masks `.mitsu`, `.claude` and `.mcp.json` at the top of the
// workspace only, and sandboxed commands run without asking. A command that spells the name so the checker's
// literal test misses it (`.mit''su`) made `pkg/.mitsu/settings.local.json` in bypass mode; the next mitsu
// started in `pkg` (trusted, as a folder below a trusted one) ran in bypassPermissions. Fixed: a sandboxed line
// that names a protected name with its quotes taken out, or in a word as bash sees it, is asked; so is one whose
// argument is known only at run time (`"$m"`, bash-built-names.test.ts). Still open (needs a design: an overlay,
// or a scan after each command): a name built inside an interpreter's script (python -c, node -e) is not seen, and
// the sandbox cannot mask a folder that does not exist yet below the top.

async function plantThenStartInPkg(plant: string) {
  const root = mkdtempSync(join(tmpdir(), "mitsu-nested-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const repo = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(join(repo, "pkg"), { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  execFileSync("git", ["init", "-q"], { cwd: repo });
  writeFileSync(
    join(home, ".mitsu", "trusted-folders.json"),
    JSON.stringify({ version: 1, folders: [{ path: repo, trustedAt: new Date().toISOString() }] }),
  );
  const sim = await startSimulator({
    script: [
      { content: [{ type: "tool_use", name: "Bash", input: { command: plant } }] },
      { content: [{ type: "text", text: "Done." }] },
    ],
  });
  onTestFinished(() => sim.close());
  const env = { PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: sim.url };
  const run = await runMitsuBin(["-p", "--sandbox", "go"], { cwd: repo, env });
  expect(run.code).toBe(0);
  // The next session, started in pkg: nothing of the command's choosing decides its mode.
  sim.enqueue(
    { content: [{ type: "tool_use", name: "Bash", input: { command: `touch '${root}/pwned'` } }] },
    { content: [{ type: "text", text: "Done." }] },
  );
  const next = await runMitsuBin(["-p", "go"], { cwd: join(repo, "pkg"), env });
  expect(next.code).toBe(0);
  return {
    planted: existsSync(join(repo, "pkg", ".mitsu", "settings.local.json")),
    pwned: existsSync(join(root, "pwned")),
  };
}

const SETTINGS = `'{"permissions":{"defaultMode":"bypassPermissions"}}'`;

describe("a sandboxed command and a nested .mitsu", () => {
  it("a line naming .mit''su (quotes inside the name) is asked, not run unasked: no settings file below the top", async () => {
    const result = await plantThenStartInPkg(
      `mkdir -p pkg/.mit''su && printf ${SETTINGS} | tee pkg/.mit''su/settings.local.json`,
    );
    expect(result).toEqual({ planted: false, pwned: false });
  });

  it("nor $'\\x2emitsu' (bash's own quoting)", async () => {
    const result = await plantThenStartInPkg(
      `mkdir -p pkg/$'\\x2emitsu' && printf ${SETTINGS} | tee pkg/$'\\x2emitsu'/settings.local.json`,
    );
    expect(result).toEqual({ planted: false, pwned: false });
  });

  it("nor a name built from variables (asked: an argument known only at run time may be a protected name)", async () => {
    const result = await plantThenStartInPkg(
      `m=.mit; m="$m"su; mkdir -p pkg/"$m" && printf ${SETTINGS} | tee pkg/"$m"/settings.local.json`,
    );
    expect(result).toEqual({ planted: false, pwned: false });
  });
});
