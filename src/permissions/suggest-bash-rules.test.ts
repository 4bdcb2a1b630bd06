import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Tool } from "../loop/tool.js";
import { loadSettings } from "./load-settings.js";
import { createPermissionChecker, type PermissionAnswer } from "./permission-checker.js";
import { saveLocalAllowRules } from "./save-local-rules.js";

// "Always" at a Bash question: the rules it saves must allow the call that was approved and as little else as
// possible. Checked through the checker, as the terminal uses it: ask, answer "always", ask again.
const Bash = {
  name: "Bash",
  description: "",
  inputSchema: {},
  permissionFacts: (input: { command: string }) => ({ command: input.command }),
  run: async () => "",
} as unknown as Tool<never>;
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };

/** The rules "always" offers for `command`, with a checker whose session then holds them. */
async function always(command: string, answer: PermissionAnswer = "allow_always") {
  const asked: string[][] = [];
  const checker = createPermissionChecker({
    mode: "default",
    cwd: "/work/p",
    // "Always" to the first question only: the later ones probe what the saved rules allow.
    ask: async (request) => {
      asked.push(request.suggestedRules);
      return asked.length === 1 ? answer : "deny";
    },
  });
  await checker(Bash, { command }, ctx);
  /** Whether `next` now runs without a question. */
  const allowsWithoutAsking = async (next: string) => {
    const before = asked.length;
    await checker(Bash, { command: next }, ctx);
    return asked.length === before;
  };
  return { rules: asked[0] ?? [], allowsWithoutAsking };
}

describe("the narrowest rule 'always' saves for a Bash line", () => {
  it("a loop of harmless commands: a rule per command, never one for the keyword (Bash(for:*))", async () => {
    const loop = "for i in 1 2 3; do echo $i; sleep 1; done";
    const { rules, allowsWithoutAsking } = await always(loop);
    expect(rules).toEqual(["Bash(echo:*)", "Bash(sleep:*)"]);
    expect(await allowsWithoutAsking(loop)).toBe(true);
    expect(await allowsWithoutAsking("for i in a b; do rm -rf $i; done")).toBe(false);
  });

  it("a loop that changes things: the exact line, which allows that line and nothing else", async () => {
    const loop = "for f in a.txt b.txt; do rm $f; done";
    const { rules, allowsWithoutAsking } = await always(loop);
    expect(rules).toEqual([`Bash(${loop})`]);
    expect(await allowsWithoutAsking(loop)).toBe(true);
    expect(await allowsWithoutAsking(`  ${loop}\n`)).toBe(true);
    expect(await allowsWithoutAsking("rm a.txt")).toBe(false);
    expect(await allowsWithoutAsking("for f in c.txt; do rm $f; done")).toBe(false);
  });

  it("a pipeline of harmless commands: a rule per command", async () => {
    // (`ls | grep foo | wc -l` alone only reads: it runs without a question, see permission-checker.test.ts.)
    expect((await always("ps aux | grep foo | wc -l")).rules).toEqual([
      "Bash(ps:*)",
      "Bash(grep:*)",
      "Bash(wc:*)",
    ]);
  });

  it("&& chains and ; lists: each command's own prefix rule, as it would get alone", async () => {
    const { rules, allowsWithoutAsking } = await always("npm test && git push origin main");
    expect(rules).toEqual(["Bash(npm test:*)", "Bash(git push:*)"]);
    expect(await allowsWithoutAsking("npm test && git push origin main")).toBe(true);
    expect(await allowsWithoutAsking("npm test && rm -rf /")).toBe(false);
    expect((await always("git fetch; git pull")).rules).toEqual(["Bash(git fetch:*)", "Bash(git pull:*)"]);
  });

  it("a list with a command that runs its arguments: the exact line", async () => {
    const line = "npm test && sudo make install";
    const { rules, allowsWithoutAsking } = await always(line);
    expect(rules).toEqual([`Bash(${line})`]);
    expect(await allowsWithoutAsking(line)).toBe(true);
    expect(await allowsWithoutAsking("npm test && sudo rm -rf /")).toBe(false);
  });

  it("a subshell that changes things: the exact line", async () => {
    const line = "(cd src && rm old.o)";
    const { rules, allowsWithoutAsking } = await always(line);
    expect(rules).toEqual([`Bash(${line})`]);
    expect(await allowsWithoutAsking(line)).toBe(true);
    expect(await allowsWithoutAsking("(cd src && rm main.c)")).toBe(false);
  });

  it("cd x && a harmless command: a rule per command", async () => {
    // `cd src && ls -la` only reads inside the workspace: it is not asked at all.
    expect((await always("cd src && ls -la ../..")).rules).toEqual(["Bash(cd:*)", "Bash(ls:*)"]);
  });

  it("a command substitution inside a harmless command is not waved through: the exact line", async () => {
    expect((await always("echo $(rm -rf build)")).rules).toEqual(["Bash(echo $(rm -rf build))"]);
  });

  it("an env assignment before the command: the exact line, not Bash(FOO=1:*)", async () => {
    const { rules, allowsWithoutAsking } = await always("FOO=1 npm test");
    expect(rules).toEqual(["Bash(FOO=1 npm test)"]);
    expect(await allowsWithoutAsking("FOO=1 npm test")).toBe(true);
    expect(await allowsWithoutAsking("FOO=1 rm -rf /")).toBe(false);
  });

  it("commands that run their arguments get the exact line: sudo, sh -c, xargs, python, find", async () => {
    for (const line of [
      "sudo rm -rf build",
      "bash -c 'rm x'",
      "xargs rm < list",
      "python build.py",
      "find . -name x -exec cat {} +",
    ]) {
      expect((await always(line)).rules).toEqual([`Bash(${line})`]);
    }
  });

  it("a simple command keeps its prefix rule, and a transparent wrapper gives the inner command's", async () => {
    expect((await always("touch one")).rules).toEqual(["Bash(touch:*)"]);
    expect((await always("git push origin main")).rules).toEqual(["Bash(git push:*)"]);
    expect((await always("timeout 30 npm test")).rules).toEqual(["Bash(npm test:*)"]);
  });

  it("a line a rule cannot spell exactly (a glob's *) offers no 'always'", async () => {
    expect((await always("for f in *.o; do rm $f; done")).rules).toEqual([]);
    expect((await always("find . -name '*.o' -delete")).rules).toEqual([]);
    expect((await always("for f in *.o; do rm $f; done > log.txt")).rules).toEqual([]);
  });

  it("an exact multi-line rule survives .mitsu/settings.local.json and allows that loop in the next session", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mitsu-always-"));
    try {
      const loop = 'for f in a.txt b.txt; do\n  rm "$f"\ndone';
      const { rules } = await always(loop);
      expect(rules).toEqual([`Bash(${loop})`]);
      await saveLocalAllowRules(dir, rules);
      const settings = await loadSettings({ cwd: dir, home: join(dir, "home"), trusted: true });
      const next = createPermissionChecker({
        rules: settings.rules,
        mode: "default",
        cwd: dir,
        ask: async () => "deny",
      });
      expect(await next(Bash, { command: loop }, ctx)).toEqual({ behavior: "allow" });
      expect(await next(Bash, { command: loop.replace("b.txt", "c.txt") }, ctx)).toMatchObject({
        behavior: "deny",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
