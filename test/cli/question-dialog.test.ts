import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { hooksApprovalQuestion } from "../../src/cli/tui/hooks-approval-question.js";
import { mcpApprovalQuestion } from "../../src/cli/tui/mcp-approval-question.js";
import { createQuestionDialog, type Question } from "../../src/cli/tui/question-dialog.js";
import { trustQuestion } from "../../src/cli/tui/trust-question.js";

const plain = createStyle(false);
const colour = createStyle(true);
const KEYS = { up: "\u001b[A", down: "\u001b[B", enter: "\r", escape: "\u001b" };

const question: Question<string> = {
  title: "Pick one",
  prompt: "Which?",
  options: [
    { key: "1", aliases: ["y"], label: "First", answer: "first" },
    { key: "2", label: "Second", detail: "more about it", answer: "second" },
    { key: "3", aliases: ["n"], label: "Third", answer: "third" },
  ],
  escape: "escaped",
};

/** What the dialog settled on, or "pending" if it has not. */
async function settled<A>(answer: Promise<A>): Promise<A | "pending"> {
  return Promise.race([
    answer,
    new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), 10)),
  ]);
}

describe("the question dialog (a pi-tui component)", () => {
  it("a single key answers at once, without Enter; aliases too; keys after the answer are ignored", async () => {
    for (const [key, answer] of [
      ["1", "first"],
      ["y", "first"],
      ["2", "second"],
      ["3", "third"],
      ["N", "third"],
    ]) {
      const dialog = createQuestionDialog(question, { style: plain });
      dialog.handleInput(key as string);
      expect(await settled(dialog.answer)).toBe(answer);
      expect(dialog.done).toBe(true);
      dialog.handleInput("1");
      expect(await dialog.answer).toBe(answer);
    }
  });

  it("arrows move the selection and Enter picks it; Esc answers the question's escape", async () => {
    const dialog = createQuestionDialog(question, { style: plain });
    dialog.handleInput(KEYS.down);
    dialog.handleInput(KEYS.down);
    dialog.handleInput(KEYS.down); // wraps to the first
    dialog.handleInput(KEYS.up); // back to the last
    expect(dialog.selected).toBe(2);
    expect(await settled(dialog.answer)).toBe("pending");
    dialog.handleInput(KEYS.enter);
    expect(await settled(dialog.answer)).toBe("third");
    const escaped = createQuestionDialog(question, { style: plain });
    escaped.handleInput(KEYS.escape);
    expect(await settled(escaped.answer)).toBe("escaped");
  });

  it("a key it does not know changes nothing; cancel() settles with the escape or the answer given", async () => {
    const dialog = createQuestionDialog(question, { style: plain });
    dialog.handleInput("x");
    dialog.handleInput("\u001b[1;5C");
    expect(await settled(dialog.answer)).toBe("pending");
    dialog.cancel();
    expect(await dialog.answer).toBe("escaped");
    const other = createQuestionDialog(question, { style: plain });
    other.cancel("second");
    expect(await other.answer).toBe("second");
  });

  it("renders the title, the prompt, the options with a pointer on the selected one, and the hint", () => {
    let changes = 0;
    const dialog = createQuestionDialog(question, { style: plain, onChange: () => changes++ });
    expect(dialog.render(40)).toEqual([
      "─".repeat(40),
      " Pick one",
      "",
      " Which?",
      " ❯ 1. First",
      "   2. Second",
      "      more about it",
      "   3. Third",
      "",
      " Esc to cancel",
    ]);
    dialog.handleInput(KEYS.down);
    expect(changes).toBe(1);
    expect(dialog.render(40)).toContain(" ❯ 2. Second");
  });

  it("a long label wraps instead of being cut, and a new line in it shows as ⏎ (never a raw line break)", () => {
    const rule = "Bash(for f in a b; do\n  rm $f\ndone)";
    const dialog = createQuestionDialog(
      {
        ...question,
        options: [{ key: "2", label: `Yes, and don't ask again for ${rule} in this project`, answer: "x" }],
      },
      { style: plain },
    );
    const lines = dialog.render(30);
    for (const line of lines) {
      expect(line).not.toMatch(/[\r\n]/);
      expect(visibleWidth(line)).toBeLessThanOrEqual(30);
    }
    const shown = lines.join(" ").replace(/\s+/g, " ");
    expect(shown).toContain("Bash(for f in a b; do ⏎ rm $f ⏎ done) in this project");
  });

  it("no line is wider than the screen, even at 20 columns", () => {
    const dialog = createQuestionDialog(
      { ...question, title: "A very long title that goes on and on", body: () => ["x".repeat(100)] },
      { style: colour },
    );
    for (const width of [20, 33, 80]) {
      for (const line of dialog.render(width)) expect(visibleWidth(line)).toBeLessThanOrEqual(width);
    }
    // The body wraps rather than cuts: every x is there.
    expect(dialog.render(20).join("").split("x").length - 1).toBe(100);
  });
});

describe("the trust and MCP questions", () => {
  it("trust: 1/y yes, 2/n/Esc no; the folder's lines are escaped", async () => {
    const q = trustQuestion(
      { folder: "/p\u001b]0;x\u0007", grants: ['permissions.allow "Bash\u001b[31m"'] },
      plain,
    );
    const dialog = createQuestionDialog(q, { style: plain });
    const screen = dialog.render(120).join("\n");
    expect(screen).not.toMatch(/\u001b/);
    expect(screen).toContain("/p\\x1b]0;x\\x07");
    dialog.handleInput("y");
    expect(await dialog.answer).toBe(true);
    const no = createQuestionDialog(q, { style: plain });
    no.handleInput(KEYS.escape);
    expect(await no.answer).toBe(false);
  });

  it("MCP: shows what would run; 1 approve, 2 deny, Esc skip", async () => {
    const q = mcpApprovalQuestion(
      {
        name: "files",
        source: ".mcp.json",
        config: { type: "stdio", command: "npx", args: ["server", "$HOME"], env: {} },
      } as never,
      plain,
    );
    const dialog = createQuestionDialog(q, { style: plain });
    expect(dialog.render(100).join("\n")).toContain('runs: npx server "$HOME"');
    dialog.handleInput("1");
    expect(await dialog.answer).toBe("approve");
    const skip = createQuestionDialog(q, { style: plain });
    skip.handleInput(KEYS.escape);
    expect(await skip.answer).toBe("skip");
  });

  it("hooks: lists each hook's command, escaped; 1/y runs them, 2/n/Esc does not", async () => {
    const q = hooksApprovalQuestion({
      file: "/p/.mitsu/settings.json",
      sha256: "x",
      hooks: [{ event: "PreToolUse", matcher: "Bash", command: "echo \u001b[2Jhi" }] as never,
    });
    const dialog = createQuestionDialog(q, { style: plain });
    const screen = dialog.render(100).join("\n");
    expect(screen).toContain("PreToolUse [Bash]: echo \\x1b[2Jhi");
    expect(screen).not.toMatch(/\u001b/);
    dialog.handleInput("1");
    expect(await dialog.answer).toBe(true);
    const no = createQuestionDialog(q, { style: plain });
    no.handleInput(KEYS.escape);
    expect(await no.answer).toBe(false);
  });
});
