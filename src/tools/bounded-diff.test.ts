import { describe, expect, it } from "vitest";
import { boundedDiff, summarizeChange } from "./bounded-diff.js";

describe("boundedDiff", () => {
  it("is a unified diff with a/ and b/ headers when within budget", () => {
    expect(boundedDiff("f.txt", "a\nb\n", "a\nc\n", { maxChars: 1000 })).toBe(
      "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
    );
  });

  it("falls back to a summary past its edit budget", () => {
    const before = Array.from({ length: 50 }, (_, i) => `old ${i}`).join("\n");
    const after = Array.from({ length: 50 }, (_, i) => `new ${i}`).join("\n");
    expect(
      boundedDiff("f.txt", `keep\n${before}\nend\n`, `keep\n${after}\nend\n`, {
        maxChars: 1000,
        maxEditLength: 10,
      }),
    ).toBe(
      "[The change is too large to show as a diff: lines 2-51 (50 lines) replaced by 50 lines. Read the file to see it.]",
    );
  });
});

describe("summarizeChange", () => {
  it("names insertions, removals and replacements by line", () => {
    expect(summarizeChange("a\nb\n", "a\nx\ny\nb\n")).toContain("2 lines inserted after line 1");
    expect(summarizeChange("a\nx\ny\nb\n", "a\nb\n")).toContain("lines 2-3 (2 lines) removed");
    expect(summarizeChange("a\nx\nb\n", "a\ny\nz\nb\n")).toContain("line 2 replaced by 2 lines");
  });
});
