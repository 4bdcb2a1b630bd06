import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function write(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const read = (path: string) => ({
  content: [{ type: "tool_use" as const, id: "t_read", name: "Read", input: { file_path: path } }],
});

describe(".claude/rules through mitsu -p", () => {
  it("an unconditional rule is in the first message; a paths: rule arrives as a reminder once a matching file is read; system never changes", async () => {
    const s = await simulatorEnv({ script: [read("src/api/users.ts"), text("Done.")] });
    sim = s.sim;
    const { root, cwd, home } = tempWorkspace({ empty: true });
    write(cwd, {
      ".claude/rules/style.md": "RULE-ALWAYS: two-space indentation.",
      ".claude/rules/api/validate.md":
        '---\npaths:\n  - "src/api/**/*.ts"\n---\nRULE-API: validate every request.',
      "src/api/users.ts": "export const users = [];\n",
      "../outside.md": "RULE-OUTSIDE",
    });
    symlinkSync("/etc/passwd", join(cwd, ".claude/rules/passwd.md"));
    symlinkSync(join(root, "outside.md"), join(cwd, ".claude/rules/outside.md"));
    const run = await runMitsu(["-p", "--allowedTools", "Read", "--", "look at the users API"], {
      cwd,
      home,
      env: s.env,
    });
    expect(run.code).toBe(0);
    const [first, second] = s.sim.requests;
    const firstText = JSON.stringify(first?.body.messages);
    expect(firstText).toContain("RULE-ALWAYS");
    expect(firstText).not.toContain("RULE-API");
    expect(firstText).not.toContain("root:x:0:0");
    expect(firstText).not.toContain("RULE-OUTSIDE");
    expect(firstText).toContain("links to /etc/passwd, outside the project");
    const newest = JSON.stringify(second?.body.messages.at(-1));
    expect(newest).toContain("<system-reminder>");
    expect(newest).toContain("RULE-API: validate every request.");
    expect(second?.body.system).toEqual(first?.body.system);
    expect(JSON.stringify(second?.body.system)).not.toContain("RULE-");
  });

  it("a sub-agent that reads a file a paths: rule matches is sent the rule too (review b: it never was)", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use" as const,
              id: "t_task",
              name: "Task",
              input: { description: "fix", prompt: "Fix the users API", subagent_type: "general-purpose" },
            },
          ],
        },
        read("src/api/users.ts"),
        text("Fixed."),
        text("Done."),
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace({ empty: true });
    write(cwd, {
      ".claude/rules/api/validate.md":
        '---\npaths:\n  - "src/api/**/*.ts"\n---\nRULE-API: validate every request.',
      "src/api/users.ts": "export const users = [];\n",
    });
    const run = await runMitsu(["-p", "--allowedTools", "Read", "Task", "--", "fix the users API"], {
      cwd,
      home,
      env: s.env,
    });
    expect(run.code).toBe(0);
    // Requests: the parent's, the child's first, the child's after its Read, the parent's after the Task.
    const childAfterRead = JSON.stringify(s.sim.requests[2]?.body.messages);
    expect(childAfterRead).toContain("tool_result");
    expect(childAfterRead).toContain("RULE-API: validate every request.");
  });
});
