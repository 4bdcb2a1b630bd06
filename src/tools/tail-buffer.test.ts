import { describe, expect, it } from "vitest";
import { TailBuffer } from "./tail-buffer.js";

describe("TailBuffer", () => {
  it("keeps exactly the last maxChars characters, however the text was split", () => {
    const tail = new TailBuffer(10);
    let all = "";
    for (const piece of ["abc", "defgh", "", "ijklmnop", "q", "rstuvwxyz0123"]) {
      tail.push(piece);
      all += piece;
      expect(tail.toString()).toBe(all.slice(-10));
    }
    expect(tail.size).toBeLessThanOrEqual(10 + 13);
  });

  it("holds bounded memory for a long stream of small pieces", () => {
    const tail = new TailBuffer(100);
    for (let i = 0; i < 100_000; i++) tail.push(`${i}\n`);
    expect(tail.size).toBeLessThan(110);
    expect(tail.toString().endsWith("99999\n")).toBe(true);
  });
});
