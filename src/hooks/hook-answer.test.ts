import { describe, expect, it } from "vitest";
import { checkAnswer, readCommandOutcome } from "./hook-answer.js";
import { compileMatcher, parseHooks } from "./load-hooks.js";

describe("a command hook's answer, as Claude Code defines it", () => {
  it("exit 0: JSON is an answer, other text is plain output; exit 2 blocks with stderr; others are errors", () => {
    expect(readCommandOutcome("PreToolUse", 0, '{"decision":"block","reason":"no"}', "")).toEqual({
      kind: "answer",
      answer: { decision: "block", reason: "no" },
    });
    expect(readCommandOutcome("UserPromptSubmit", 0, "some context\n", "")).toEqual({
      kind: "answer",
      answer: {},
      text: "some context",
    });
    expect(readCommandOutcome("PreToolUse", 0, "{not json", "")).toMatchObject({ text: "{not json" });
    expect(readCommandOutcome("PreToolUse", 2, "ignored", "why\n")).toEqual({
      kind: "blocked",
      message: "why",
    });
    expect(readCommandOutcome("PreToolUse", 3, "", "boom")).toEqual({
      kind: "error",
      message: "exited with code 3: boom",
    });
  });

  it("fields of the wrong type make the answer an error, not a silent default", () => {
    expect(checkAnswer([])).toMatch(/not an object/);
    expect(checkAnswer({ continue: "no" })).toMatch(/continue/);
    expect(checkAnswer({ hookSpecificOutput: { permissionDecision: "maybe" } })).toMatch(
      /permissionDecision/,
    );
    expect(checkAnswer({ hookSpecificOutput: { updatedInput: "rm -rf /" } })).toMatch(/updatedInput/);
    expect(checkAnswer({ unknownField: 1, systemMessage: "hi" })).toEqual({ systemMessage: "hi" });
  });

  it("PermissionRequest's decision: allow with updatedInput, deny with message and interrupt; anything else an error", () => {
    expect(
      checkAnswer({
        hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { command: "ls" } } },
      }),
    ).toEqual({ hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { command: "ls" } } } });
    expect(
      checkAnswer({ hookSpecificOutput: { decision: { behavior: "deny", message: "no", interrupt: true } } }),
    ).toEqual({ hookSpecificOutput: { decision: { behavior: "deny", message: "no", interrupt: true } } });
    expect(checkAnswer({ hookSpecificOutput: { decision: { behavior: "ask" } } })).toMatch(/behavior/);
    expect(checkAnswer({ hookSpecificOutput: { decision: "allow" } })).toMatch(/not an object/);
    expect(
      checkAnswer({ hookSpecificOutput: { decision: { behavior: "allow", updatedInput: "rm -rf /" } } }),
    ).toMatch(/updatedInput/);
  });
});

describe("settings hooks", () => {
  it("matchers: empty and * match all, plain names exactly, anything else as an anchored regex", () => {
    expect(compileMatcher("")?.("Anything")).toBe(true);
    expect(compileMatcher("*")?.("Bash")).toBe(true);
    expect(compileMatcher("Edit|Write")?.("Write")).toBe(true);
    expect(compileMatcher("Edit|Write")?.("WriteFile")).toBe(false);
    expect(compileMatcher("Bash")?.("BashOutput")).toBe(false);
    expect(compileMatcher("mcp__memory__.*")?.("mcp__memory__create")).toBe(true);
    expect(compileMatcher("mcp__memory__.*")?.("mcp__github__x")).toBe(false);
    expect(compileMatcher("(")).toBeUndefined();
  });

  it("reads Claude Code's format; what cannot be used is a warning naming the file, the rest still counts", () => {
    const warnings: string[] = [];
    const hooks = parseHooks(
      {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [
              { type: "command", command: "a", timeout: 5 },
              { type: "agent", prompt: "x" },
              { type: "mcp_tool", tool: "x" },
            ],
          },
          { matcher: "(", hooks: [{ type: "command", command: "b" }] },
        ],
        Stop: [{ hooks: [{ type: "command", command: "c" }] }],
        OnFire: [],
      },
      "/p/.claude/settings.json",
      warnings,
    );
    expect(hooks).toEqual([
      {
        event: "PreToolUse",
        matcher: "Bash",
        command: "a",
        timeoutMs: 5000,
        source: "/p/.claude/settings.json",
      },
      // An agent hook (Claude Code's 60 s default).
      {
        event: "PreToolUse",
        matcher: "Bash",
        command: "x",
        type: "agent",
        timeoutMs: 60_000,
        source: "/p/.claude/settings.json",
      },
      { event: "Stop", matcher: "", command: "c", timeoutMs: 60_000, source: "/p/.claude/settings.json" },
    ]);
    expect(warnings).toHaveLength(3);
    // `if` is a permission rule, on tool events only; an http hook needs an http(s) url.
    const more: string[] = [];
    const parsed = parseHooks(
      {
        PreToolUse: [
          {
            hooks: [
              { type: "command", command: "ok", if: "Bash(git *)" },
              { type: "command", command: "bad", if: "Bash(" },
              { type: "http", url: "file:///etc/passwd" },
              { type: "http", url: "http://127.0.0.1:9/h", headers: { A: "$X" }, allowedEnvVars: ["X"] },
            ],
          },
        ],
        Stop: [{ hooks: [{ type: "command", command: "s", if: "Bash" }] }],
      },
      "/f.json",
      more,
    );
    expect(parsed.map((h) => h.command)).toEqual(["ok", "http://127.0.0.1:9/h"]);
    expect(parsed[0]?.if).toBe("Bash(git *)");
    expect(parsed[1]).toMatchObject({ type: "http", headers: { A: "$X" }, allowedEnvVars: ["X"] });
    expect(more).toHaveLength(3);
    expect(warnings.every((w) => w.startsWith("/p/.claude/settings.json"))).toBe(true);
  });
});
