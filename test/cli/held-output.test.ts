import { describe, expect, it } from "vitest";
import { createHeldOutput } from "../../src/cli/held-output.js";

const ERASE = "\r\u001b[2K";

function screen() {
  const writes: string[] = [];
  const output = createHeldOutput((text) => writes.push(text));
  return { writes, output };
}

describe("the held output", () => {
  it("holds writes while a question waits and prints them after, in order", () => {
    const { writes, output } = screen();
    output.write("a\n");
    output.hold();
    writes.push("question\n"); // the question writes directly
    output.write("b");
    output.write("c\n");
    output.release();
    expect(writes).toEqual(["a\n", "question\n", "bc\n"]);
    expect(output.atLineStart).toBe(true);
  });

  it("takes the status line off the screen before a question, and draws only the latest after the answer", () => {
    const { writes, output } = screen();
    output.status("  ⎿ step 1");
    output.hold();
    writes.push("question\n");
    output.status("  ⎿ step 2");
    output.status("  ⎿ step 3");
    output.release();
    expect(writes).toEqual([`${ERASE}  ⎿ step 1`, ERASE, "question\n", `${ERASE}  ⎿ step 3`]);
    // The status line does not count as text on the line: a question needs no newline first.
    expect(output.atLineStart).toBe(true);
  });

  it("prints what was held before the status line, and erases nothing that is not on screen", () => {
    const { writes, output } = screen();
    output.status("");
    output.hold();
    output.status("  ⎿ old");
    output.status(""); // erased before a result, as the renderer does
    output.write("result\n");
    output.status("  ⎿ next");
    output.release();
    output.status("");
    expect(writes).toEqual(["result\n", `${ERASE}  ⎿ next`, ERASE]);
  });

  it("leaves nothing drawn after the answer when the status line was erased meanwhile", () => {
    const { writes, output } = screen();
    output.status("  ⎿ running");
    output.hold();
    output.status("");
    output.write("done\n");
    output.release();
    expect(writes).toEqual([`${ERASE}  ⎿ running`, ERASE, "done\n"]);
  });
});
