import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const READ_ONLY = [
  "ls",
  "pwd",
  "cat README.md",
  "head -n 3 README.md",
  "wc -l README.md",
  "grep -rn test src",
  "find . -name '*.js' -not -path './node_modules/*'",
  "git status",
  "git log --oneline -3",
  "git diff HEAD -- README.md",
];
const ASKED = [
  "cat ~/.ssh/id_rsa",
  "cat ../outside.txt",
  "find . -name '*.tmp' -delete",
  "ls > listing.txt",
  "cat $(echo README.md)",
];

describe("read-only commands in the default mode (print mode: an ask is a denial)", () => {
  it("ls, pwd, cat, head, wc, grep, find and git status/log/diff run; outside the workspace, writes and substitutions do not", async () => {
    const commands = [...READ_ONLY, ...ASKED];
    const s = await simulatorEnv({
      script: [
        {
          content: commands.map((command, i) => ({
            type: "tool_use" as const,
            id: `toolu_${i}`,
            name: "Bash",
            input: { command },
          })),
        },
        { content: [{ type: "text" as const, text: "Looked around." }] },
      ],
    });
    sim = s.sim;
    const { root, cwd, home } = tempWorkspace();
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_rsa"), "PRIVATE KEY");
    writeFileSync(join(root, "outside.txt"), "outside");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "ignore" });
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "start");

    const run = await runMitsu(["-p", "look around"], { cwd, home, env: s.env });
    expect(run.code, run.stderr).toBe(0);
    const results = s.sim.requests[1]?.body.messages.at(-1).content as Array<{
      tool_use_id: string;
      content: unknown;
    }>;
    const resultOf = (command: string) =>
      JSON.stringify(results.find((r) => r.tool_use_id === `toolu_${commands.indexOf(command)}`)?.content);
    for (const command of READ_ONLY) expect(resultOf(command), command).not.toContain("Permission to use");
    expect(resultOf("cat README.md")).toContain("temperature-conversion");
    expect(resultOf("git status")).toContain("nothing to commit");
    for (const command of ASKED) expect(resultOf(command), command).toContain("Permission to use");
    expect(JSON.stringify(results)).not.toContain("PRIVATE KEY");
  });
});
