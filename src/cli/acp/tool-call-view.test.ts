import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createBuiltinTools } from "../../tools/create-builtin-tools.js";
import { planOf } from "./event-updates.js";
import { permissionAnswer } from "./permission-options.js";
import { toolCallView, toolKind } from "./tool-call-view.js";

describe("ACP tool call views", () => {
  it("names each tool's kind, and Bash's by its command", () => {
    expect(toolKind("Read", {})).toBe("read");
    expect(toolKind("Edit", {})).toBe("edit");
    expect(toolKind("Grep", {})).toBe("search");
    expect(toolKind("WebFetch", {})).toBe("fetch");
    expect(toolKind("TodoWrite", {})).toBe("think");
    expect(toolKind("mcp__x__y", {})).toBe("other");
    expect(toolKind("Bash", { command: "npm test" })).toBe("execute");
    expect(toolKind("Bash", { command: "rm -rf build" })).toBe("delete");
    expect(toolKind("Bash", { command: "mv a b" })).toBe("move");
  });

  it("shows an Edit as a whole-file diff with its line, only for files inside", () => {
    const cwd = mkdtempSync(join(tmpdir(), "mitsu-acp-view-"));
    onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
    writeFileSync(join(cwd, "a.ts"), "one\ntwo\nthree\n");
    const tools = createBuiltinTools({ cwd });
    const edit = tools.find((t) => t.name === "Edit");
    const block = {
      type: "tool_use" as const,
      id: "e",
      name: "Edit",
      input: { file_path: "a.ts", old_string: "three", new_string: "3" },
    };
    const inside = toolCallView(block, edit, { cwd, summary: "Edit a.ts", inside: () => true });
    expect(inside.content).toEqual([
      { type: "diff", path: join(cwd, "a.ts"), oldText: "one\ntwo\nthree\n", newText: "one\ntwo\n3\n" },
    ]);
    expect(inside.locations).toEqual([{ path: join(cwd, "a.ts"), line: 3 }]);
    // A file it may not read is shown by the edit's own strings.
    const outside = toolCallView(block, edit, { cwd, summary: "Edit a.ts", inside: () => false });
    expect(outside.content).toEqual([
      { type: "diff", path: join(cwd, "a.ts"), oldText: "three", newText: "3" },
    ]);
  });

  it("a TodoWrite list is the whole plan; an answer other than allow is a denial", () => {
    expect(planOf({ todos: [{ content: "A", status: "completed" }, { content: 3 }] })).toEqual({
      sessionUpdate: "plan",
      entries: [{ content: "A", priority: "medium", status: "completed" }],
    });
    expect(planOf({})).toBeUndefined();
    expect(permissionAnswer({ outcome: { outcome: "selected", optionId: "allow_always" } })).toBe(
      "allow_always",
    );
    expect(permissionAnswer({ outcome: { outcome: "selected", optionId: "something" } })).toBe("deny");
    expect(permissionAnswer({ outcome: { outcome: "cancelled" } })).toBe("deny");
    expect(permissionAnswer(undefined)).toBe("deny");
  });
});
