import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PIXEL } from "../transcript.js";
import { call, calls, E2eHarness } from "./e2e-harness.js";

// Read, Write and Edit played by the simulator through the loop: the effect on disk, and the tool_result
// blocks exactly as they went back to the model.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

describe("Read through the loop", () => {
  it("returns numbered lines, and a window with offset and limit that says how to read on", async () => {
    await h.put("notes.txt", "one\ntwo\nthree\nfour\nfive\n");
    const { result } = await h.run([
      calls(
        call("all", "Read", { file_path: h.path("notes.txt") }),
        call("window", "Read", { file_path: "notes.txt", offset: 2, limit: 2 }),
      ),
    ]);
    expect(result.reason).toBe("end_turn");
    expect(h.sent("all")).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_all",
      content: "     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n     5\tfive",
    });
    expect(h.sentText("window")).toBe(
      "     2\ttwo\n     3\tthree\n\n[Showing lines 2-3 of 5. To read more, call Read again with offset 4 (and a limit).]",
    );
  });

  it("refuses a binary file with an is_error result that says why", async () => {
    await h.put("blob.bin", new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]));
    await h.run([calls(call("bin", "Read", { file_path: "blob.bin" }))]);
    const sent = h.sent("bin");
    expect(sent.is_error).toBe(true);
    expect(sent.content).toContain(
      "Cannot read blob.bin: it looks like a binary file (it contains NUL bytes",
    );
  });

  it("returns a PNG as an image block inside the tool_result", async () => {
    await h.put("pixel.png", Buffer.from(PIXEL, "base64"));
    await h.run([calls(call("img", "Read", { file_path: "pixel.png" }))]);
    const sent = h.sent("img");
    expect(sent.is_error).toBeUndefined();
    expect(sent.content).toEqual([
      { type: "text", text: `Image pixel.png (image/png, ${Buffer.from(PIXEL, "base64").length} bytes):` },
      { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
    ]);
  });

  it("refuses a path outside the workspace", async () => {
    await h.put("../outside/secret.txt", "top secret");
    await h.run([calls(call("out", "Read", { file_path: "../outside/secret.txt" }))]);
    const sent = h.sent("out");
    expect(sent.is_error).toBe(true);
    expect(sent.content).toContain("Access denied: ../outside/secret.txt");
    expect(sent.content).toContain("is outside the workspace");
    expect(sent.content).not.toContain("top secret");
  });
});

describe("Write through the loop", () => {
  it("creates a file and its parent folders", async () => {
    await h.run([calls(call("new", "Write", { file_path: "deep/er/new.txt", content: "hello\nworld\n" }))]);
    expect(await h.text("deep/er/new.txt")).toBe("hello\nworld\n");
    expect(h.sentText("new")).toBe("Created deep/er/new.txt (2 lines, 12 bytes).");
  });

  it("refuses to overwrite a file that was not Read, and leaves it as it was", async () => {
    await h.put("keep.txt", "original\n");
    await h.run([calls(call("blind", "Write", { file_path: "keep.txt", content: "clobbered\n" }))]);
    expect(h.sent("blind").is_error).toBe(true);
    expect(h.sentText("blind")).toContain(
      "keep.txt exists but has not been Read in this session. Read it first",
    );
    expect(await h.text("keep.txt")).toBe("original\n");
  });

  it("overwrites a file after it was Read in an earlier turn, and shows the diff", async () => {
    await h.put("keep.txt", "original\n");
    await h.run([
      calls(call("look", "Read", { file_path: "keep.txt" })),
      calls(call("over", "Write", { file_path: "keep.txt", content: "replaced\n" })),
    ]);
    expect(await h.text("keep.txt")).toBe("replaced\n");
    const text = h.sentText("over");
    expect(text).toMatch(/^Updated keep\.txt \(1 line, 9 bytes\)\.\n\n/);
    expect(text).toContain("-original\n+replaced");
  });
});

describe("Edit through the loop", () => {
  const files = {
    "once.ts": "const a = 1;\nconst b = 2;\n",
    "miss.ts": "function greet(name) {\n  return 'hi ' + name;\n}\n",
    "multi.ts": "x = 1;\ny = 2;\nx = 1;\n",
    "all.ts": "let count = 0;\ncount += 1;\nreturn count;\n",
  };

  it("replaces exactly once, reports a miss with the nearest line, refuses several matches, replaces all", async () => {
    for (const [name, text] of Object.entries(files)) await h.put(name, text);
    await h.run([
      calls(...Object.keys(files).map((name) => call(`read-${name}`, "Read", { file_path: name }))),
      calls(
        call("once", "Edit", {
          file_path: "once.ts",
          old_string: "const b = 2;",
          new_string: "const b = 3;",
        }),
        call("miss", "Edit", {
          file_path: "miss.ts",
          old_string: "function greet(nme) {",
          new_string: "function greet(who) {",
        }),
        call("multi", "Edit", { file_path: "multi.ts", old_string: "x = 1;", new_string: "x = 9;" }),
        call("all", "Edit", {
          file_path: "all.ts",
          old_string: "count",
          new_string: "total",
          replace_all: true,
        }),
      ),
    ]);

    expect(await h.text("once.ts")).toBe("const a = 1;\nconst b = 3;\n");
    expect(h.sent("once").is_error).toBeUndefined();
    expect(h.sentText("once")).toBe(
      [
        "Edited once.ts (1 replacement).",
        "",
        "--- a/once.ts",
        "+++ b/once.ts",
        "@@ -1,2 +1,2 @@",
        " const a = 1;",
        "-const b = 2;",
        "+const b = 3;",
        "",
      ].join("\n"),
    );

    expect(h.sent("miss").is_error).toBe(true);
    expect(h.sentText("miss")).toBe(
      [
        "old_string was not found in miss.ts.",
        "The lines most similar to the first line of old_string:",
        "     1\tfunction greet(name) {",
        "     2\t  return 'hi ' + name;",
      ].join("\n"),
    );
    expect(await h.text("miss.ts")).toBe(files["miss.ts"]);

    expect(h.sent("multi").is_error).toBe(true);
    expect(h.sentText("multi")).toContain("old_string matches 2 times in multi.ts (at lines 1, 3)");
    expect(h.sentText("multi")).toContain("set replace_all to true");
    expect(await h.text("multi.ts")).toBe(files["multi.ts"]);

    expect(await h.text("all.ts")).toBe("let total = 0;\ntotal += 1;\nreturn total;\n");
    expect(h.sentText("all")).toMatch(/^Edited all\.ts \(3 replacements\)\.\n\n--- a\/all\.ts/);
    expect(h.sentText("all")).toContain("-return count;\n+let total = 0;\n+total += 1;\n+return total;");
  });

  it("refuses to edit a file that was not Read", async () => {
    await h.put("once.ts", files["once.ts"]);
    await h.run([
      calls(call("blind", "Edit", { file_path: "once.ts", old_string: "a = 1", new_string: "a = 5" })),
    ]);
    expect(h.sent("blind").is_error).toBe(true);
    expect(h.sentText("blind")).toContain("has not been Read in this session");
    expect(await h.text("once.ts")).toBe(files["once.ts"]);
  });
});
