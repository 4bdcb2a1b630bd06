import { describe, expect, it } from "vitest";
import { truncateOutput } from "./truncate-output.js";

describe("truncateOutput", () => {
  it("returns text that fits unchanged", () => {
    expect(truncateOutput("abc\ndef", 10)).toEqual({
      text: "abc\ndef",
      truncated: false,
      omittedChars: 0,
      omittedLines: 0,
    });
  });

  it("keeps the head and the tail within the cap, at line breaks, with a marker", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n");
    const result = truncateOutput(text, 200);
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith("line 1\nline 2\n")).toBe(true);
    expect(result.text.endsWith("line 999\nline 1000")).toBe(true);
    expect(result.text).toMatch(/\[\d+ characters \(\d+ lines\) omitted\]/);
    expect(result.text.length).toBeLessThan(200 + 60);
    const [head, tail] = result.text.split(/\.\.\. \[.*\] \.\.\.\n/) as [string, string];
    expect(head.length + result.omittedChars + tail.length).toBe(text.length);
    // No half lines on either side of the marker.
    for (const line of result.text.split("\n")) expect(line).toMatch(/^(line \d+|\.\.\. \[.*\] \.\.\.)$/);
  });

  it("cuts text without line breaks by characters", () => {
    const result = truncateOutput("x".repeat(1000), 100);
    expect(result.text).toMatch(/^x{50}\n\.\.\. \[900 characters \(1 line\) omitted\] \.\.\.\nx{50}$/);
  });
});
