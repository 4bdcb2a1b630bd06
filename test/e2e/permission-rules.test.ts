import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { call, calls, E2eHarness } from "./e2e-harness.js";

// Permission rules through the loop, in print mode (no terminal to ask): a call that would be asked is
// denied, and a denied call has no side effect — each test checks that the effect is absent.
let h: E2eHarness;
beforeEach(async () => {
  h = await E2eHarness.start();
});
afterEach(() => h.close());

const PRINT_MODE = "mitsu is running without a terminal to ask.";

describe("default permissions in print mode", () => {
  it("allows Read, Grep and Glob; denies Write, Edit and Bash with how to allow them, and none of them acts", async () => {
    await h.put("notes.txt", "keep me\n");
    const { result } = await h.run(
      [
        calls(
          call("read", "Read", { file_path: "notes.txt" }),
          call("grep", "Grep", { pattern: "keep" }),
          call("glob", "Glob", { pattern: "*.txt" }),
        ),
        calls(
          call("write", "Write", { file_path: "made/new.txt", content: "x" }),
          call("edit", "Edit", { file_path: "notes.txt", old_string: "keep me", new_string: "changed" }),
          call("bash", "Bash", { command: "touch marker" }),
        ),
      ],
      { canUseTool: await h.checker() },
    );
    expect(result.reason).toBe("end_turn");
    expect(h.sentText("read")).toBe("     1\tkeep me");
    expect(h.sentText("grep")).toBe("Found 1 file:\nnotes.txt");
    expect(h.sentText("glob")).toBe("notes.txt");

    const denial = (display: string, rule: string) => ({
      is_error: true,
      content: `Permission to use ${display} was denied: ${PRINT_MODE} To allow it, add "${rule}" to permissions.allow in .mitsu/settings.json or pass --allowedTools "${rule}"`,
    });
    expect(h.sent("write")).toMatchObject(denial("Write(made/new.txt)", "Edit(./made/**)"));
    expect(h.sent("edit")).toMatchObject(denial("Edit(notes.txt)", "Edit(./notes.txt)"));
    expect(h.sent("bash")).toMatchObject(denial("Bash(touch marker)", "Bash(touch:*)"));
    expect(h.exists("made")).toBe(false);
    expect(await h.text("notes.txt")).toBe("keep me\n");
    expect(h.exists("marker")).toBe(false);
  });
});

describe("settings files through the loop", () => {
  it("applies project, local and user settings: allow, ask and deny", async () => {
    await h.put(
      ".mitsu/settings.json",
      JSON.stringify({
        permissions: {
          allow: ["Bash(touch:*)"],
          ask: ["Bash(touch asked)"],
          deny: ["Read(./secrets/**)"],
        },
      }),
    );
    await h.put(".mitsu/settings.local.json", JSON.stringify({ permissions: { allow: ["Edit(./src/**)"] } }));
    await h.put("../home/.mitsu/settings.json", JSON.stringify({ permissions: { allow: ["Bash(echo:*)"] } }));
    await h.put("secrets/key.txt", "hunter2\n");
    const project = h.path(".mitsu/settings.json");
    await h.run(
      [
        calls(
          call("touch", "Bash", { command: "touch made" }),
          call("asked", "Bash", { command: "touch asked" }),
          call("secret", "Read", { file_path: "secrets/key.txt" }),
          call("grep-secret", "Grep", { pattern: "hunter", path: "secrets" }),
          call("src", "Write", { file_path: "src/new.ts", content: "export {};\n" }),
          call("lib", "Write", { file_path: "lib/new.ts", content: "export {};\n" }),
          call("echo", "Bash", { command: "echo from-user-settings" }),
        ),
      ],
      { canUseTool: await h.checker() },
    );
    expect(h.sentText("touch")).toBe("(no output)\n\n[Exit code: 0]");
    expect(h.exists("made")).toBe(true);

    expect(h.sent("asked").is_error).toBe(true);
    expect(h.sentText("asked")).toBe(
      `Permission to use Bash(touch asked) was denied: ${PRINT_MODE} The rule "Bash(touch asked)" in permissions.ask of ${project} requires asking; run mitsu interactively to approve it, or remove that rule.`,
    );
    expect(h.exists("asked")).toBe(false);

    const deniedBy = (display: string) =>
      `Permission to use ${display} was denied by the rule "Read(./secrets/**)" in permissions.deny of ${project}.`;
    expect(h.sent("secret")).toMatchObject({ is_error: true, content: deniedBy("Read(secrets/key.txt)") });
    expect(h.sent("grep-secret")).toMatchObject({ is_error: true, content: deniedBy("Grep(hunter)") });
    expect(JSON.stringify(h.sentResults())).not.toContain("hunter2");

    expect(h.sentText("src")).toBe("Created src/new.ts (1 line, 11 bytes).");
    expect(await h.text("src/new.ts")).toBe("export {};\n");
    expect(h.sent("lib").is_error).toBe(true);
    expect(h.sentText("lib")).toContain('To allow it, add "Edit(./lib/**)" to permissions.allow');
    expect(h.exists("lib")).toBe(false);

    expect(h.sentText("echo")).toBe("from-user-settings\n\n[Exit code: 0]");
  });

  it("lets deny win over allow, and one denied sub-command denies the whole line", async () => {
    await h.put(
      ".mitsu/settings.json",
      JSON.stringify({ permissions: { allow: ["Bash", "Edit"], deny: ["Bash(rm:*)", "Edit(./locked/**)"] } }),
    );
    await h.put("keep.txt", "precious\n");
    await h.run(
      [
        calls(
          call("rm", "Bash", { command: "rm keep.txt" }),
          call("chain", "Bash", { command: "touch first && rm -f keep.txt" }),
          call("locked", "Write", { file_path: "locked/x.txt", content: "x" }),
          call("open", "Write", { file_path: "open/x.txt", content: "x" }),
        ),
      ],
      { canUseTool: await h.checker() },
    );
    const project = h.path(".mitsu/settings.json");
    expect(h.sent("rm")).toMatchObject({
      is_error: true,
      content: `Permission to use Bash(rm keep.txt) was denied by the rule "Bash(rm:*)" in permissions.deny of ${project}.`,
    });
    expect(h.sent("chain").is_error).toBe(true);
    expect(h.sentText("chain")).toContain('denied by the rule "Bash(rm:*)"');
    expect(await h.text("keep.txt")).toBe("precious\n");
    expect(h.exists("first")).toBe(false);
    expect(h.sentText("locked")).toContain('denied by the rule "Edit(./locked/**)"');
    expect(h.exists("locked")).toBe(false);
    expect(await h.text("open/x.txt")).toBe("x");
  });

  it("Bash(npm run test:*) allows npm run test:unit, but not npm run test:unit && touch pwned", async () => {
    await h.put(".mitsu/settings.json", JSON.stringify({ permissions: { allow: ["Bash(npm run test:*)"] } }));
    await h.put(
      "package.json",
      JSON.stringify({ name: "e2e", version: "1.0.0", scripts: { "test:unit": "echo unit >> ran.txt" } }),
    );
    await h.run(
      [
        calls(call("unit", "Bash", { command: "npm run test:unit" })),
        calls(call("pwn", "Bash", { command: "npm run test:unit && touch pwned" })),
      ],
      { canUseTool: await h.checker() },
    );
    expect(h.sent("unit").is_error).toBeUndefined();
    expect(h.sentText("unit")).toMatch(/\[Exit code: 0\]$/);
    expect(h.sent("pwn")).toMatchObject({
      is_error: true,
      content: `Permission to use Bash(npm run test:unit && touch pwned) was denied: ${PRINT_MODE} To allow it, add "Bash(touch:*)" to permissions.allow in .mitsu/settings.json or pass --allowedTools "Bash(touch:*)"`,
    });
    // The script ran once (the allowed call), and the denied line did nothing at all.
    expect(await h.text("ran.txt")).toBe("unit\n");
    expect(h.exists("pwned")).toBe(false);
  });
});
