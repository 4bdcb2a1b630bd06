import { describe, expect, it } from "vitest";
import { ThrottledProgress } from "./throttled-progress.js";

describe("ThrottledProgress", () => {
  it("reports the first piece at once, joins the next ones, and flushes the rest on close", async () => {
    const reports: string[] = [];
    const progress = new ThrottledProgress((text) => reports.push(text), 50);
    progress.push("one\n");
    expect(reports).toEqual(["one\n"]);
    progress.push("two\n");
    progress.push("three\n");
    expect(reports).toEqual(["one\n"]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(reports).toEqual(["one\n", "two\nthree\n"]);
    progress.push("four\n");
    progress.close();
    progress.push("after close\n");
    expect(reports.join("")).toBe("one\ntwo\nthree\nfour\n");
  });

  it("keeps at most maxChars waiting, dropping the oldest, and says how much was dropped", () => {
    const reports: string[] = [];
    const progress = new ThrottledProgress((text) => reports.push(text), 10_000, 10);
    progress.push("first");
    for (let i = 0; i < 100; i++) progress.push("abcdefgh\n");
    progress.close();
    expect(reports[0]).toBe("first");
    expect(reports[1]).toMatch(/^\n\[… \d+ characters of output not shown live …\]\n/);
    expect(reports[1]?.endsWith("abcdefgh\n")).toBe(true);
    expect(reports).toHaveLength(2);
  });
});
