import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CappedOutput } from "./capped-output.js";

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "mitsu-capped-"));
});
afterEach(() => rm(base, { recursive: true, force: true }));

const spillTo =
  (path: string, highWaterMark = 16 * 1024) =>
  () => ({
    path,
    stream: createWriteStream(path, { flags: "wx", highWaterMark }),
  });

describe("CappedOutput", () => {
  it("keeps everything that fits, and writes no file", async () => {
    const output = new CappedOutput({ maxChars: 100, openSpill: spillTo(join(base, "never")) });
    output.push("hello ");
    output.push("world");
    expect(await output.finish()).toEqual({ text: "hello world", truncated: false, totalChars: 11 });
  });

  it("asks its source to pause while the file cannot keep up, and calls back once it has", async () => {
    const path = join(base, "out.log");
    const output = new CappedOutput({ maxChars: 10, openSpill: spillTo(path, 64) });
    const chunk = "x".repeat(1000);
    expect(output.push(chunk)).toBe(false);
    await new Promise<void>((resolve) => output.onDrain(resolve));
    // Once drained, the next small write is accepted again.
    expect(output.push("y")).toBe(true);
    const result = await output.finish();
    expect(result.fullOutputPath).toBe(path);
    expect(await readFile(path, "utf8")).toBe(`${chunk}y`);
  });

  it("caps the saved copy: its beginning, a marker with the bytes left out, its exact end", async () => {
    const path = join(base, "capped.log");
    const output = new CappedOutput({ maxChars: 100, openSpill: spillTo(path), maxSpillBytes: 4000 });
    let all = "";
    for (let i = 0; i < 2000; i++) {
      const line = `line ${i} é\n`;
      all += line;
      output.push(line);
    }
    const result = await output.finish();
    const saved = await readFile(path, "utf8");
    expect(result.spillOmittedBytes).toBeGreaterThan(0);
    const [head, rest] = saved.split(
      /\n\.\.\. \[\d+ bytes omitted: the saved output is capped at 4000 bytes; its beginning and its last \d+ bytes are kept\] \.\.\.\n/,
    );
    expect(all.startsWith(head ?? "-")).toBe(true);
    expect(all.endsWith(rest ?? "-")).toBe(true);
    expect(Buffer.byteLength(head ?? "") + Buffer.byteLength(rest ?? "")).toBeLessThanOrEqual(4000);
    expect(Buffer.byteLength(all) - Buffer.byteLength(head ?? "") - Buffer.byteLength(rest ?? "")).toBe(
      result.spillOmittedBytes,
    );
    expect(result.text.endsWith("line 1999 é\n")).toBe(true);
  });

  it("says why the output could not be saved", async () => {
    const output = new CappedOutput({
      maxChars: 5,
      openSpill: () => {
        throw new Error("no space");
      },
    });
    output.push("0123456789");
    expect(await output.finish()).toMatchObject({ truncated: true, saveError: "no space" });
  });
});
