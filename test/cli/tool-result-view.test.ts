import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { createToolResultView } from "../../src/cli/tui/tool-result-view.js";
import { USER_REJECTED_MESSAGE, USER_STOPPED_MESSAGE } from "../../src/loop/permission.js";
import type { ToolResultBlock, ToolUseBlock } from "../../src/messages/index.js";

const plain = createStyle(false);
const call = (name: string, input: Record<string, unknown> = {}): ToolUseBlock => ({
  type: "tool_use",
  id: "toolu_1",
  name,
  input,
});
const ok = (content: string): ToolResultBlock => ({ type: "tool_result", tool_use_id: "toolu_1", content });
const failed = (content: string): ToolResultBlock => ({ ...ok(content), is_error: true });
const numbered = (n: number) =>
  Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(6)}\tline ${i + 1}`).join("\n");

describe("the tool result view", () => {
  it("a Read says how many lines it read, never the file", () => {
    const view = createToolResultView(call("Read", { file_path: "a.ts" }), ok(numbered(120)), {
      style: plain,
    });
    expect(view.render(80)).toEqual(["  ⎿ Read 120 lines"]);
    expect(view.collapsible).toBe(false);
  });

  it("a refused call shows what happened, not the text written for the model", () => {
    expect(
      createToolResultView(call("Bash"), failed(USER_REJECTED_MESSAGE), { style: plain }).render(80),
    ).toEqual(["  ⎿ refused by you"]);
    expect(
      createToolResultView(call("Edit"), failed(USER_STOPPED_MESSAGE), { style: plain }).render(80),
    ).toEqual(["  ⎿ not run: you stopped the turn"]);
  });

  it("long output is collapsed to a few lines with the count and the key; toggle shows it all", () => {
    const output = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n");
    const view = createToolResultView(call("Grep"), ok(output), { style: plain });
    expect(view.collapsible).toBe(true);
    expect(view.render(80)).toEqual([
      "  ⎿ row 1",
      "    row 2",
      "    row 3",
      "    row 4",
      "    … +26 lines (ctrl+o to expand)",
    ]);
    view.toggle();
    expect(view.expanded).toBe(true);
    expect(view.render(80)).toHaveLength(30);
    view.setExpanded(false);
    expect(view.render(80)).toHaveLength(5);
  });

  it("a command's output shows its last lines, where a test run says how it went, without a clean exit's note", () => {
    const output = `${Array.from({ length: 20 }, (_, i) => `test ${i + 1} ok`).join("\n")}\n\n[Exit code: 0]`;
    const view = createToolResultView(call("Bash"), ok(output), { style: plain, expandKey: "ctrl+r" });
    expect(view.render(80)).toEqual([
      "  ⎿ … +16 lines (ctrl+r to expand)",
      "    test 17 ok",
      "    test 18 ok",
      "    test 19 ok",
      "    test 20 ok",
    ]);
  });

  it("short output is shown whole and is not collapsible; an empty one says so", () => {
    const view = createToolResultView(call("Bash"), ok("one\ntwo"), { style: plain });
    expect(view.collapsible).toBe(false);
    expect(view.render(80)).toEqual(["  ⎿ one", "    two"]);
    expect(createToolResultView(call("Bash"), ok("\n[Exit code: 0]"), { style: plain }).render(80)).toEqual([
      "  ⎿ (no output)",
    ]);
  });

  it("escape sequences in the output never reach the terminal, and no line is wider than the screen", () => {
    const hostile = `safe\u001b]0;pwned\u0007 \u001b[2J${"w".repeat(300)}\ttab`;
    const view = createToolResultView(call("Bash"), ok(hostile), { style: createStyle(true) });
    for (const width of [10, 40]) {
      for (const line of view.render(width)) {
        expect(visibleWidth(line)).toBeLessThanOrEqual(width);
        expect(line.replace(/\u001b\[\d+m/g, "")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }
    }
  });

  it("a diff is coloured and gets more lines before it collapses", () => {
    const diff = ["Edited a.ts", "--- a/a.ts", "+++ b/a.ts", "@@ -1,2 +1,2 @@", "-old", "+new", " same"].join(
      "\n",
    );
    const view = createToolResultView(call("Edit"), ok(diff), { style: createStyle(true) });
    expect(view.collapsible).toBe(false);
    const lines = view.render(80);
    expect(lines).toContain("    \u001b[31m-old\u001b[39m");
    expect(lines).toContain("    \u001b[32m+new\u001b[39m");
  });
});
