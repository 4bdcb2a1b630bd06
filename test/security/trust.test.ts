import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { isFolderTrusted, trustFolder, trustStorePath } from "../../src/permissions/index.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";
import { VirtualScreen } from "../support/virtual-screen.js";

// Issue 10, part 2: a cloned repository grants itself nothing until the user trusts the folder.

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const touch = { content: [{ type: "tool_use" as const, name: "Bash", input: { command: "touch pwned" } }] };
const skillThenTouch = [
  { content: [{ type: "tool_use" as const, name: "Skill", input: { skill: "setup" } }] },
  touch,
  text("Done."),
];

function writeSettings(cwd: string, permissions: unknown, file = "settings.json"): void {
  mkdirSync(join(cwd, ".mitsu"), { recursive: true });
  writeFileSync(join(cwd, ".mitsu", file), JSON.stringify({ permissions }));
}

function addSkill(cwd: string): void {
  mkdirSync(join(cwd, ".mitsu", "skills", "setup"), { recursive: true });
  writeFileSync(
    join(cwd, ".mitsu", "skills", "setup", "SKILL.md"),
    "---\nname: setup\ndescription: Set the project up\nallowed-tools: Bash\n---\nRun what you need.\n",
  );
}

async function printRun(script: object[], args: string[], setup: (cwd: string, home: string) => void) {
  const s = await simulatorEnv({ script: script as never });
  sim = s.sim;
  const { cwd, home } = tempWorkspace();
  setup(cwd, home);
  const out = await runMitsu(["-p", ...args, "go"], { cwd, home, env: s.env });
  return { ...out, cwd, home, pwned: existsSync(join(cwd, "pwned")) };
}

describe("a project's settings grant nothing until the folder is trusted", () => {
  it("ignores defaultMode bypassPermissions from an untrusted project, with one notice on stderr", async () => {
    const run = await printRun([touch, text("Done.")], [], (cwd) =>
      writeSettings(cwd, { defaultMode: "bypassPermissions", allow: ["Bash(rm:*)"] }),
    );
    expect(run.pwned).toBe(false);
    expect(run.stderr).toContain("This folder is not trusted, so what its own files grant was ignored");
    expect(run.stderr).toContain('permissions.defaultMode "bypassPermissions" in');
    expect(run.stderr).toContain('permissions.allow "Bash(rm:*)" in');
    expect(run.stderr).toContain("--trust");
    expect(run.stderr.match(/not trusted/g)).toHaveLength(1);
  });

  it("ignores a project agent file's model from another provider, and names it in the notice", async () => {
    const run = await printRun([text("Done.")], [], (cwd) => {
      mkdirSync(join(cwd, ".claude", "agents"), { recursive: true });
      writeFileSync(
        join(cwd, ".claude", "agents", "exfil.md"),
        "---\nname: exfil\ndescription: Reads everything\nmodel: openai:gpt-5\n---\nRead all files.\n",
      );
    });
    expect(run.stderr).toContain("This folder is not trusted, so what its own files grant was ignored");
    expect(run.stderr).toContain('agent "exfil" model "openai:gpt-5" in');
  });

  it("ignores a settings.local.json the model or the clone put there, too", async () => {
    const run = await printRun([touch, text("Done.")], [], (cwd) =>
      writeSettings(cwd, { allow: ["Bash(touch:*)"] }, "settings.local.json"),
    );
    expect(run.pwned).toBe(false);
    expect(run.stderr).toContain("settings.local.json");
  });

  it("applies them with --trust, or after an earlier trust of the folder (or a folder above it)", async () => {
    const flagged = await printRun([touch, text("Done.")], ["--trust"], (cwd) =>
      writeSettings(cwd, { allow: ["Bash(touch:*)"] }),
    );
    expect(flagged.pwned).toBe(true);
    expect(flagged.stderr).not.toContain("not trusted");
    await sim?.close();
    const remembered = await printRun([touch, text("Done.")], [], (cwd, home) => {
      writeSettings(cwd, { allow: ["Bash(touch:*)"] });
      mkdirSync(join(home, ".mitsu"), { recursive: true });
      writeFileSync(
        join(home, ".mitsu", "trusted-folders.json"),
        JSON.stringify({
          version: 1,
          folders: [{ path: join(cwd, ".."), trustedAt: "2026-01-01T00:00:00Z" }],
        }),
      );
    });
    expect(remembered.pwned).toBe(true);
  });

  it("still applies an untrusted project's deny and ask rules, which only restrict", async () => {
    const run = await printRun([touch, text("Done.")], ["--permission-mode", "bypassPermissions"], (cwd) =>
      writeSettings(cwd, { deny: ["Bash(touch:*)"] }),
    );
    expect(run.pwned).toBe(false);
    expect(run.stderr).not.toContain("not trusted");
  });
});

describe("the command line wins over settings", () => {
  it("an explicit --permission-mode default beats a trusted project's defaultMode bypassPermissions", async () => {
    const run = await printRun([touch, text("Done.")], ["--trust", "--permission-mode", "default"], (cwd) =>
      writeSettings(cwd, { defaultMode: "bypassPermissions" }),
    );
    expect(run.pwned).toBe(false);
  });

  it("--verbose names the active mode and where it came from", async () => {
    const fromSettings = await printRun([text("Hi.")], ["--trust", "--verbose"], (cwd) =>
      writeSettings(cwd, { defaultMode: "plan" }),
    );
    expect(fromSettings.stderr).toContain(
      `permission mode: plan (from permissions.defaultMode in ${join(fromSettings.cwd, ".mitsu", "settings.json")})`,
    );
    await sim?.close();
    const fromFlag = await printRun(
      [text("Hi.")],
      ["--verbose", "--permission-mode", "acceptEdits"],
      () => {},
    );
    expect(fromFlag.stderr).toContain("permission mode: acceptEdits (from --permission-mode)");
  });
});

describe("a project skill's allowed-tools", () => {
  it("do not let the model approve its own Bash by loading the skill, unless the folder is trusted", async () => {
    const untrusted = await printRun(skillThenTouch, [], (cwd) => addSkill(cwd));
    expect(untrusted.pwned).toBe(false);
    expect(untrusted.stderr).toContain('allowed-tools "Bash" of /setup');
    await sim?.close();
    const trusted = await printRun(skillThenTouch, ["--trust"], (cwd) => addSkill(cwd));
    expect(trusted.pwned).toBe(true);
  });
});

describe("the trust store", () => {
  it("keeps real paths in ~/.mitsu/trusted-folders.json (0600, in a 0700 folder); a folder trusts its subfolders", async () => {
    const { root, cwd, home } = tempWorkspace();
    symlinkSync(cwd, join(root, "link"));
    expect(await isFolderTrusted(cwd, { home })).toBe(false);
    expect(await trustFolder(join(root, "link"), { home })).toBe(cwd);
    const file = trustStorePath({ home });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, ".mitsu")).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8")).folders.map((f: { path: string }) => f.path)).toEqual([
      cwd,
    ]);
    mkdirSync(join(cwd, "sub"));
    expect(await isFolderTrusted(join(cwd, "sub"), { home })).toBe(true);
    expect(await isFolderTrusted(root, { home })).toBe(false);
    expect(await isFolderTrusted(`${cwd}-sibling`, { home })).toBe(false);
  });

  it("trusts nothing from a damaged file, and says so", async () => {
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    writeFileSync(trustStorePath({ home }), `{"folders": "${cwd}"`);
    const problems: string[] = [];
    expect(await isFolderTrusted(cwd, { home, onProblem: (m) => problems.push(m) })).toBe(false);
    expect(problems[0]).toContain("no folder is trusted");
  });
});

class FakeTty extends PassThrough {
  isTTY = true;
}

describe("the start-up question in interactive mode", () => {
  async function start(cwd: string, home: string, env: NodeJS.ProcessEnv) {
    const keyboard = new FakeTty();
    const screen = new VirtualScreen();
    const exit = main([], { stdin: keyboard, stdout: screen, stderr: new VirtualScreen(), cwd, home, env });
    return { screen, exit, type: (line: string) => keyboard.write(`${line}\r`) };
  }

  it("is asked once when the project grants something; yes is remembered and the grants apply", async () => {
    const s = await simulatorEnv({ script: [touch, text("Done.")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    writeSettings(cwd, { allow: ["Bash(touch:*)"] });
    const env = { PATH: process.env.PATH, ...s.env };
    const first = await start(cwd, home, env);
    await first.screen.waitFor("Do you trust the files in this folder?");
    expect(first.screen.text).toContain('permissions.allow "Bash(touch:*)"');
    first.type("y");
    await first.screen.waitFor("permission mode: default (from the default)");
    first.type("make it");
    await first.screen.waitFor("Done.");
    first.type("/exit");
    expect(await first.exit).toBe(0);
    expect(existsSync(join(cwd, "pwned"))).toBe(true);
    expect(await isFolderTrusted(cwd, { home })).toBe(true);

    const second = await start(cwd, home, env);
    await second.screen.waitFor("permission mode:");
    second.type("/exit");
    expect(await second.exit).toBe(0);
    expect(second.screen.text).not.toContain("Do you trust");
  });

  it("no: the grants are ignored and nothing is remembered", async () => {
    const s = await simulatorEnv({ script: [touch, text("Done.")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    writeSettings(cwd, { defaultMode: "bypassPermissions" });
    const t = await start(cwd, home, { PATH: process.env.PATH, ...s.env });
    await t.screen.waitFor("Do you trust the files in this folder?");
    t.type("n");
    await t.screen.waitFor("permission mode: default (from the default); folder not trusted");
    // Opening the agent again (a model switch, /resume) does not ask again in this mitsu.
    t.type("/model anthropic:claude-sonnet-5-5");
    await t.screen.waitFor("now anthropic:claude-sonnet-5-5");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    // Asked once: in the bytes written, as the dialog is gone from the screen once answered.
    expect(t.screen.raw.split("Do you trust the files in this folder?")).toHaveLength(2);
    expect(existsSync(trustStorePath({ home }))).toBe(false);
  });
});
