import { describe, expect, it } from "vitest";
import type { Message, TextBlock, ToolDefinition } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import { applyCacheBreakpoints, findBreakpoints } from "./cache-breakpoints.js";
import { comparePrefix } from "./prefix-diagnostics.js";

const tool = (name: string): ToolDefinition => ({
  name,
  description: name,
  input_schema: { type: "object" },
});
const text = (t: string): TextBlock => ({ type: "text", text: t });
const request = (messages: Message[], over: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "m",
  system: [text("core"), text("env")],
  tools: [tool("Read"), tool("Bash")],
  messages,
  maxTokens: 1000,
  ...over,
});
const where = (r: ModelRequest) =>
  findBreakpoints(r).map((p) =>
    p.part === "messages" ? `messages[${p.index}].content[${p.block}]` : `${p.part}[${p.index}]`,
  );

const turn = (n: number): Message[] => [
  { role: "assistant", content: [{ type: "tool_use", id: `t${n}`, name: "Read", input: { n } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: `t${n}`, content: `result ${n}` }] },
];

describe("applyCacheBreakpoints", () => {
  it("marks the last system block, the last tool and the newest message's last block", () => {
    const r = applyCacheBreakpoints(request([{ role: "user", content: [text("reminder"), text("hello")] }]));
    expect(where(r)).toEqual(["tools[1]", "system[1]", "messages[0].content[1]"]);
    expect(r.system[1]!.cache_control).toEqual({ type: "ephemeral" });
  });

  it("adds one marker on the previous user message, so the previous entry is read however far back", () => {
    const messages: Message[] = [{ role: "user", content: [text("go")] }, ...turn(1)];
    expect(where(applyCacheBreakpoints(request(messages)))).toEqual([
      "tools[1]",
      "system[1]",
      "messages[0].content[0]",
      "messages[2].content[0]",
    ]);
  });

  it("never exceeds 4: older markers carried in history are moved, the newest kept", () => {
    // History as sent: every earlier request left its markers on its own messages.
    let history: Message[] = [{ role: "user", content: [text("go")] }];
    for (let n = 1; n <= 6; n++) {
      const sent = applyCacheBreakpoints(request(history));
      expect(findBreakpoints(sent).length).toBeLessThanOrEqual(4);
      history = [...sent.messages, ...turn(n)];
    }
    const sent = applyCacheBreakpoints(request(history));
    expect(where(sent)).toEqual([
      "tools[1]",
      "system[1]",
      "messages[10].content[0]",
      "messages[12].content[0]",
    ]);
  });

  it("never changes the request it is given", () => {
    const original = request([{ role: "user", content: [text("hi")] }]);
    const before = JSON.stringify(original);
    applyCacheBreakpoints(original);
    expect(JSON.stringify(original)).toBe(before);
  });

  it("respects markers the caller put on system or tools and counts them", () => {
    const r = request([{ role: "user", content: [text("go")] }, ...turn(1)], {
      system: [{ ...text("core"), cache_control: { type: "ephemeral" } }, text("env")],
      tools: [{ ...tool("Read"), cache_control: { type: "ephemeral", ttl: "1h" } }, tool("Bash")],
    });
    const sent = applyCacheBreakpoints(r);
    // 2 fixed + tail + last system block = 4: no room for the last tool or the older message.
    expect(where(sent)).toEqual(["tools[0]", "system[0]", "system[1]", "messages[2].content[0]"]);
    expect(sent.tools[0]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(sent.system[0]!.cache_control).toEqual({ type: "ephemeral" });
  });

  it("refuses a request whose system and tools already carry more than 4 markers", () => {
    const marked = { type: "ephemeral" as const };
    const r = request([], {
      system: [1, 2, 3].map((i) => ({ ...text(String(i)), cache_control: marked })),
      tools: [1, 2].map((i) => ({ ...tool(`T${i}`), cache_control: marked })),
    });
    expect(() => applyCacheBreakpoints(r)).toThrow(/already carry 5 cache_control markers/);
  });

  it("uses the 1h TTL when asked", () => {
    const sent = applyCacheBreakpoints(request([{ role: "user", content: [text("hi")] }]), { ttl: "1h" });
    expect(sent.messages[0]!.content[0]).toMatchObject({ cache_control: { type: "ephemeral", ttl: "1h" } });
  });

  it("sends a 1h marker that would follow a 5m one as 5m (Anthropic wants longer TTLs first)", () => {
    const r = request([{ role: "user", content: [text("hi")] }], {
      system: [{ ...text("core"), cache_control: { type: "ephemeral" } }, text("env")],
    });
    const sent = applyCacheBreakpoints(r, { ttl: "1h" });
    expect(sent.tools[1]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(sent.system[1]!.cache_control).toEqual({ type: "ephemeral" });
    expect(sent.messages[0]!.content[0]).toMatchObject({ cache_control: { type: "ephemeral" } });
    expect(r.system[1]!.cache_control).toBeUndefined();
  });

  it("skips blocks that cannot carry a marker (thinking, empty text)", () => {
    const sent = applyCacheBreakpoints(
      request([
        { role: "user", content: [text("hi")] },
        {
          role: "assistant",
          content: [text("answer"), { type: "thinking", thinking: "hmm", signature: "s" }, text("")],
        },
      ]),
    );
    expect(where(sent)).toContain("messages[1].content[0]");
  });

  it("moves markers without breaking the prefix the cache sees", () => {
    const first = applyCacheBreakpoints(request([{ role: "user", content: [text("go")] }]));
    const second = applyCacheBreakpoints(request([...first.messages, ...turn(1)]));
    expect(comparePrefix(first, second)).toEqual({ ok: true });
  });
});
