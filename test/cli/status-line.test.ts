import { describe, expect, it } from "vitest";
import { fitWidth, LastLine } from "../../src/cli/render/status-line.js";

const last = (...chunks: string[]) => {
  const line = new LastLine();
  for (const chunk of chunks) line.push(chunk);
  return line.text;
};

describe("the last line of a command's output", () => {
  it("is the line being written, else the last one with text, across chunks", () => {
    expect(last()).toBe("");
    expect(last("one\ntw", "o\n")).toBe("two");
    expect(last("one\ntwo\n", "  \n\n")).toBe("two");
    expect(last("one\nthr", "ee")).toBe("three");
  });

  it("reads as a terminal shows it: a carriage return starts the line again; colours and tabs go", () => {
    expect(last("10%\r50%\r", "90%")).toBe("90%");
    expect(last("windows line\r\n")).toBe("windows line");
    expect(last("\u001b[32mok\u001b[39m\tdone\u0007\n")).toBe("ok done");
  });

  it("keeps a bounded start of a line that never ends", () => {
    const line = new LastLine();
    for (let i = 0; i < 1000; i++) line.push("x".repeat(100));
    expect(line.text).toBe("x".repeat(4096));
    line.push("\rfresh");
    expect(line.text).toBe("fresh");
  });
});

describe("fitWidth", () => {
  it("cuts to the cells of a terminal, with an ellipsis, counting wide characters twice", () => {
    expect(fitWidth("short", 10)).toBe("short");
    expect(fitWidth("exactly10!", 10)).toBe("exactly10!");
    expect(fitWidth("eleven char", 10)).toBe("eleven ch…");
    expect(fitWidth("日本語のテキスト", 7)).toBe("日本語…");
    expect(fitWidth("日本語のテキスト", 8)).toBe("日本語…");
    expect(fitWidth("anything", 0)).toBe("");
  });
});
