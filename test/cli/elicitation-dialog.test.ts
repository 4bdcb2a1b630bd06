import { visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/render/style.js";
import { createElicitationDialog } from "../../src/cli/tui/elicitation-dialog.js";
import type { McpElicitationAnswer } from "../../src/mcp/index.js";

const plain = createStyle(false);
const KEYS = { down: "\u001b[B", enter: "\r", escape: "\u001b", backspace: "\u007f", shiftTab: "\u001b[Z" };

function dialog(schema: Record<string, unknown>, message = "Pick", error?: string) {
  const d = createElicitationDialog(
    { server: "srv", message, schema, ...(error ? { error } : {}) },
    plain,
    () => {},
  );
  let settled: McpElicitationAnswer | undefined;
  void d.answer.then((a) => {
    settled = a;
  });
  const current = async () => {
    await Promise.resolve();
    return settled;
  };
  return { d, settled: current };
}

describe("the elicitation dialog (a pi-tui component)", () => {
  it("a multi-choice field toggles with Space; defaults are filled in; an optional empty field is left out", async () => {
    const { d, settled } = dialog({
      type: "object",
      properties: {
        tags: { type: "array", items: { enum: ["a", "b", "c"] }, default: ["c"] },
        note: { type: "string" },
        count: { type: "number", default: 3 },
      },
    });
    d.handleInput(" "); // a
    d.handleInput(KEYS.down);
    d.handleInput(KEYS.down);
    d.handleInput(" "); // c off
    d.handleInput(KEYS.enter);
    d.handleInput(KEYS.enter); // note left empty
    expect(d.render(60).join("\n")).toContain("› 3");
    d.handleInput(KEYS.enter);
    expect(await settled()).toEqual({ action: "accept", content: { tags: ["a"], count: 3 } });
  });

  it("every line fits the width, the server's text is stripped, a long message is cut with a count", () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i} \u001b[2J${"w".repeat(200)}`).join("\n");
    const { d } = dialog(
      { type: "object", properties: { x: { type: "string", title: `T\u001b]0;t\u0007${"t".repeat(150)}` } } },
      long,
      "x must be at least 2 characters",
    );
    const lines = d.render(50);
    for (const line of lines) expect(visibleWidth(line)).toBeLessThanOrEqual(50);
    const text = lines.join("\n");
    expect(text).not.toContain("\u001b]");
    expect(text).not.toContain("\u001b[2J");
    expect(text).toMatch(/… \d+ more lines/);
    expect(text).toContain("Refused: x must be at least 2 characters");
  });

  it("Esc declines, cancel() cancels; a schema it cannot ask is declined on Enter", async () => {
    const esc = dialog({ type: "object", properties: { x: { type: "string" } } });
    esc.d.handleInput(KEYS.escape);
    expect(await esc.settled()).toEqual({ action: "decline" });
    const withdrawn = dialog({ type: "object", properties: { x: { type: "string" } } });
    withdrawn.d.cancel();
    expect(await withdrawn.settled()).toEqual({ action: "cancel" });
    const nested = dialog({ type: "object", properties: { x: { type: "object" } } });
    expect(nested.d.render(60).join("\n")).toContain("not one a form may ask for");
    nested.d.handleInput(KEYS.enter);
    expect(await nested.settled()).toEqual({ action: "decline" });
  });

  it("200 choices scroll in a window around the selected one; a long text shows its end, where the cursor is", async () => {
    const values = Array.from({ length: 200 }, (_, i) => `v${i + 1}`);
    const { d, settled } = dialog({
      type: "object",
      properties: { pick: { type: "string", enum: values }, text: { type: "string" } },
    });
    expect(d.render(60).length).toBeLessThan(30);
    // Nothing is picked at first: the first Down picks v1.
    for (let i = 0; i < 51; i++) d.handleInput(KEYS.down);
    const shown = d.render(60).join("\n");
    expect(shown).toContain("❯ 51. v51");
    expect(shown).toMatch(/↑ \d+ more/);
    expect(shown).toMatch(/↓ \d+ more/);
    d.handleInput(KEYS.enter);
    d.handleInput(`${"a".repeat(100)}END`);
    const line = d.render(40).find((l) => l.includes("›"));
    expect(line).toContain("END");
    d.handleInput(KEYS.enter);
    expect(await settled()).toEqual({
      action: "accept",
      content: { pick: "v51", text: `${"a".repeat(100)}END` },
    });
  });

  it("a yes/no or a choice without a default is not answered for the user: Enter leaves it out, or says it is required", async () => {
    const { d, settled } = dialog({
      type: "object",
      properties: {
        newsletter: { type: "boolean", title: "Newsletter" },
        plan: { type: "string", title: "Plan", enum: ["paid", "free"] },
        agree: { type: "boolean", title: "Agree" },
        size: { type: "string", title: "Size", enum: ["s", "m"], default: "m" },
      },
      required: ["agree"],
    });
    expect(d.render(60).join("\n")).not.toContain("❯");
    d.handleInput(KEYS.enter); // newsletter left out
    d.handleInput(KEYS.enter); // plan left out
    d.handleInput(KEYS.enter);
    expect(d.render(60).join("\n")).toContain("Agree is required");
    d.handleInput("y");
    d.handleInput(KEYS.enter);
    expect(d.render(60).join("\n")).toContain("❯ 2. m");
    d.handleInput(KEYS.enter);
    expect(await settled()).toEqual({ action: "accept", content: { agree: true, size: "m" } });
  });

  it("a number is read as written in decimals: 0x10 is refused, not 16; a whole number past 2^53 is refused, not rounded", async () => {
    const { d, settled } = dialog({
      type: "object",
      properties: { people: { type: "integer", title: "People" } },
    });
    d.handleInput("0x10");
    d.handleInput(KEYS.enter);
    expect(d.render(60).join("\n")).toContain("People must be a number");
    for (let i = 0; i < 4; i++) d.handleInput(KEYS.backspace);
    d.handleInput("99999999999999999999");
    d.handleInput(KEYS.enter);
    expect(d.render(60).join("\n")).toContain("People is too large to be sent exactly");
    for (let i = 0; i < 20; i++) d.handleInput(KEYS.backspace);
    d.handleInput("1e3");
    d.handleInput(KEYS.enter);
    expect(await settled()).toEqual({ action: "accept", content: { people: 1000 } });
  });

  it("Shift-Tab goes back a field with what was given for it; the answer has the corrected value", async () => {
    const { d, settled } = dialog({
      type: "object",
      properties: {
        name: { type: "string", title: "Name" },
        people: { type: "integer", title: "People" },
        time: { type: "string", title: "Time", enum: ["19:00", "21:00"] },
      },
    });
    d.handleInput("Ada");
    d.handleInput(KEYS.enter);
    expect(d.render(60).join("\n")).toContain("Shift-Tab back");
    d.handleInput("40");
    d.handleInput(KEYS.enter);
    d.handleInput(KEYS.shiftTab);
    expect(d.render(60).join("\n")).toContain("› 40");
    d.handleInput(KEYS.backspace);
    d.handleInput(KEYS.enter);
    d.handleInput(KEYS.down);
    d.handleInput(KEYS.down);
    d.handleInput(KEYS.enter);
    expect(await settled()).toEqual({ action: "accept", content: { name: "Ada", people: 4, time: "21:00" } });
  });
});
