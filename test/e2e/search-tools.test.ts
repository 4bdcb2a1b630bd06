import { utimes } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, calls, E2eHarness } from "./e2e-harness.js";

// Grep and Glob played by the simulator through the loop; the results as the model was sent them.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

describe("Grep through the loop", () => {
  it("searches in each output mode, with -i, -n, context, glob, type and head_limit", async () => {
    await h.put("src/app.ts", "export function Hello() {}\nconst hello = 1;\n// TODO: fix\n");
    await h.put("src/util.js", "function hello() {}\nmodule.exports = hello;\n");
    await h.put("docs/readme.md", "Say hello\nHELLO again\n");
    await h.put(".gitignore", "build/\n");
    await h.put("build/bundle.js", "hello hello hello\n");
    const { result } = await h.run([
      calls(
        call("files", "Grep", { pattern: "hello" }),
        call("count", "Grep", { pattern: "hello", "-i": true, output_mode: "count" }),
        call("before", "Grep", { pattern: "TODO", output_mode: "content", "-B": 1 }),
        call("around", "Grep", { pattern: "^const", output_mode: "content", "-C": 1, path: "src" }),
        call("plain", "Grep", { pattern: "HELLO", output_mode: "content", "-n": false }),
        call("glob", "Grep", { pattern: "hello", glob: "*.js" }),
        call("type", "Grep", { pattern: "hello", type: "ts" }),
        call("head", "Grep", { pattern: "hello", "-i": true, output_mode: "content", head_limit: 2 }),
        call("none", "Grep", { pattern: "goodbye" }),
      ),
    ]);
    expect(result.reason).toBe("end_turn");
    expect(h.sentText("files")).toBe("Found 3 files:\ndocs/readme.md\nsrc/app.ts\nsrc/util.js");
    expect(h.sentText("count")).toBe("docs/readme.md:2\nsrc/app.ts:2\nsrc/util.js:2");
    expect(h.sentText("before")).toBe("src/app.ts-2-const hello = 1;\nsrc/app.ts:3:// TODO: fix");
    expect(h.sentText("around")).toBe(
      "src/app.ts-1-export function Hello() {}\nsrc/app.ts:2:const hello = 1;\nsrc/app.ts-3-// TODO: fix",
    );
    expect(h.sentText("plain")).toBe("docs/readme.md:HELLO again");
    expect(h.sentText("glob")).toBe("Found 1 file:\nsrc/util.js");
    expect(h.sentText("type")).toBe("Found 1 file:\nsrc/app.ts");
    expect(h.sentText("head")).toBe(
      "docs/readme.md:1:Say hello\ndocs/readme.md:2:HELLO again\n\n[Showing the first 2 of 6 lines (head_limit).]",
    );
    expect(h.sentText("none")).toBe("No matches found.");
    expect(h.sentResults().every((block) => block.is_error === undefined)).toBe(true);
  });
});

describe("Glob through the loop", () => {
  it("matches the pattern, skips what .gitignore ignores, and lists the newest first", async () => {
    await h.put(".gitignore", "build/\n*.log\n");
    const files = ["a.ts", "b.ts", "sub/c.ts", "sub/d.js", "build/out.ts", "debug.log"];
    for (const [i, file] of files.entries()) {
      await h.put(file, `// ${file}\n`);
      const when = new Date(Date.UTC(2024, 0, 1 + i));
      await utimes(h.path(file), when, when);
    }
    // Newest first: c.ts (made newest here) before b.ts before a.ts.
    const newest = new Date(Date.UTC(2025, 0, 1));
    await utimes(h.path("sub/c.ts"), newest, newest);
    await h.run([
      calls(
        call("ts", "Glob", { pattern: "**/*.ts" }),
        call("sub", "Glob", { pattern: "*", path: "sub" }),
        call("log", "Glob", { pattern: "**/*.log" }),
      ),
    ]);
    expect(h.sentText("ts")).toBe("sub/c.ts\nb.ts\na.ts");
    expect(h.sentText("sub")).toBe("sub/c.ts\nsub/d.js");
    expect(h.sentText("log")).toBe("No files found.");
  });
});
