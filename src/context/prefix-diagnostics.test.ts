import { describe, expect, it } from "vitest";
import type { Message, TextBlock, ToolDefinition } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import { comparePrefix } from "./prefix-diagnostics.js";

const tool = (name: string): ToolDefinition => ({
  name,
  description: name,
  input_schema: { type: "object" },
});
const text = (t: string): TextBlock => ({ type: "text", text: t });
const base = (): ModelRequest => ({
  model: "m",
  system: [text("core"), text("env")],
  tools: [tool("Read"), tool("Bash"), tool("Grep"), tool("Glob")],
  messages: [
    { role: "user", content: [text("<system-reminder>\nrules\n</system-reminder>"), text("go")] },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: { a: 1, b: 2 } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
  ],
  maxTokens: 100,
});
const extended = (): ModelRequest => {
  const r = base();
  const more: Message[] = [
    { role: "assistant", content: [text("done")] },
    { role: "user", content: [text("thanks")] },
  ];
  return { ...r, messages: [...r.messages, ...more] };
};

describe("comparePrefix", () => {
  it("accepts a request that extends the previous one", () => {
    expect(comparePrefix(base(), extended())).toEqual({ ok: true });
    expect(comparePrefix(base(), base())).toEqual({ ok: true });
  });

  it("ignores cache_control and key order, which are not part of the cached bytes", () => {
    const next = extended();
    next.system[1] = { cache_control: { type: "ephemeral" }, text: "env", type: "text" };
    next.messages[1] = {
      role: "assistant",
      content: [
        {
          type: "tool_use",
          id: "t1",
          name: "Read",
          input: { b: 2, a: 1 },
          cache_control: { type: "ephemeral" },
        },
      ],
    };
    expect(comparePrefix(base(), next)).toEqual({ ok: true });
  });

  it("names a changed system block", () => {
    const next = extended();
    next.system[1] = text("env, now with a timestamp 12:01");
    expect(comparePrefix(base(), next)).toEqual({ ok: false, difference: "system[1] changed" });
  });

  it("names a changed, removed or added tool", () => {
    const changed = extended();
    changed.tools[3] = { ...tool("Glob"), description: "different" };
    expect(comparePrefix(base(), changed).difference).toBe("tools[3] changed");
    const removed = extended();
    removed.tools = removed.tools.slice(0, 2);
    expect(comparePrefix(base(), removed).difference).toBe("tools[2] removed");
    const added = extended();
    added.tools = [...added.tools, tool("mcp__x__y")];
    expect(comparePrefix(base(), added).difference).toBe("tools[4] added");
  });

  it("names a changed message block, a removed message and a changed role", () => {
    const changed = extended();
    changed.messages[0] = { role: "user", content: [text("go")] };
    expect(comparePrefix(base(), changed).difference).toBe("messages[0].content[0] changed");
    const shorter = base();
    shorter.messages = shorter.messages.slice(0, 2);
    expect(comparePrefix(base(), shorter).difference).toBe("messages[2] removed");
    const role = extended();
    role.messages[2] = { role: "assistant", content: role.messages[2]!.content };
    expect(comparePrefix(base(), role).difference).toBe("messages[2] changed (role user → assistant)");
    const grown = extended();
    grown.messages[2] = { role: "user", content: [...grown.messages[2]!.content, text("late")] };
    expect(comparePrefix(base(), grown).difference).toBe("messages[2].content[1] added");
  });

  it("reports a model change first: caches are per model", () => {
    const next = { ...extended(), model: "other" };
    next.system = [text("changed too")];
    expect(comparePrefix(base(), next).difference).toBe("model changed (m → other)");
  });
});
