import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, calls, E2eHarness } from "./e2e-harness.js";

// The permission modes through the loop, in print mode: which calls run (their effect is there) and which
// are denied (their effect is absent).
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
  await h.put("notes.txt", "draft\n");
});
afterEach(() => h.close());

const PRINT_MODE = "mitsu is running without a terminal to ask.";

describe("permission modes through the loop", () => {
  it("plan: only read-only tools run", async () => {
    await h.run(
      [
        calls(
          call("read", "Read", { file_path: "notes.txt" }),
          call("grep", "Grep", { pattern: "draft" }),
          call("glob", "Glob", { pattern: "*" }),
        ),
        calls(
          call("write", "Write", { file_path: "plan.md", content: "x" }),
          call("edit", "Edit", { file_path: "notes.txt", old_string: "draft", new_string: "final" }),
          call("bash", "Bash", { command: "touch marker" }),
        ),
      ],
      { canUseTool: await h.checker({ mode: "plan" }) },
    );
    expect(h.sentText("read")).toBe("     1\tdraft");
    expect(h.sentText("grep")).toBe("Found 1 file:\nnotes.txt");
    expect(h.sentText("glob")).toBe("notes.txt");
    for (const [id, tool] of [
      ["write", "Write"],
      ["edit", "Edit"],
      ["bash", "Bash"],
    ] as const) {
      expect(h.sent(id)).toMatchObject({
        is_error: true,
        content: `mitsu is in plan mode: only read-only tools may run, so ${tool} was not run. Explore with read-only tools, then present your plan.`,
      });
    }
    expect(h.exists("plan.md")).toBe(false);
    expect(await h.text("notes.txt")).toBe("draft\n");
    expect(h.exists("marker")).toBe(false);
  });

  it("acceptEdits: Write and Edit run in the workspace; Bash is still denied", async () => {
    await h.run(
      [
        calls(call("read", "Read", { file_path: "notes.txt" })),
        calls(
          call("write", "Write", { file_path: "docs/plan.md", content: "# Plan\n" }),
          call("edit", "Edit", { file_path: "notes.txt", old_string: "draft", new_string: "final" }),
          call("bash", "Bash", { command: "touch marker" }),
        ),
      ],
      { canUseTool: await h.checker({ mode: "acceptEdits" }) },
    );
    expect(h.sentText("write")).toBe("Created docs/plan.md (1 line, 7 bytes).");
    expect(await h.text("docs/plan.md")).toBe("# Plan\n");
    expect(h.sentText("edit")).toMatch(/^Edited notes\.txt \(1 replacement\)\./);
    expect(await h.text("notes.txt")).toBe("final\n");
    expect(h.sent("bash")).toMatchObject({ is_error: true });
    expect(h.sentText("bash")).toContain(`Permission to use Bash(touch marker) was denied: ${PRINT_MODE}`);
    expect(h.exists("marker")).toBe(false);
  });

  it("bypassPermissions: everything runs, except what a deny rule names", async () => {
    await h.put(".mitsu/settings.json", JSON.stringify({ permissions: { deny: ["Bash(rm:*)"] } }));
    await h.run(
      [
        calls(
          call("bash", "Bash", { command: "touch marker" }),
          call("write", "Write", { file_path: "new.txt", content: "made\n" }),
          call("rm", "Bash", { command: "rm notes.txt" }),
        ),
      ],
      { canUseTool: await h.checker({ mode: "bypassPermissions" }) },
    );
    expect(h.sentText("bash")).toBe("(no output)\n\n[Exit code: 0]");
    expect(h.exists("marker")).toBe(true);
    expect(await h.text("new.txt")).toBe("made\n");
    expect(h.sent("rm")).toMatchObject({
      is_error: true,
      content: `Permission to use Bash(rm notes.txt) was denied by the rule "Bash(rm:*)" in permissions.deny of ${h.path(".mitsu/settings.json")}.`,
    });
    expect(await h.text("notes.txt")).toBe("draft\n");
  });
});
