import { describe, expect, it } from "vitest";
import { chunkedResponse } from "../../../test/fixtures.js";
import {
  collect,
  endMessage,
  fakeFetch,
  type SeenRequest,
  simpleRequest,
} from "../../../test/provider-harness.js";
import { READ_TOOL } from "../../../test/transcript.js";
import type { AssistantMessage, Message, StopReason } from "../../messages/index.js";
import type { StreamEvent } from "../../stream/stream-event.js";
import { createOpenAIChatProvider } from "../openai-chat/openai-chat-provider.js";
import type { ModelRequest, Provider } from "../provider.js";
import { withXmlToolProtocol } from "./with-xml-tool-protocol.js";

/** An inner provider that streams the given text deltas (after optional thinking) and records its requests. */
function textProvider(
  deltas: string[],
  stop: StopReason = "end_turn",
  seen: ModelRequest[] = [],
  thinking?: { text: string; signature: string },
): Provider {
  return {
    api: "fake",
    encode: (request) => ({ url: "fake://", method: "POST", headers: {}, body: request }),
    async *stream(request): AsyncGenerator<StreamEvent> {
      seen.push(request);
      yield { type: "message-start", model: "fake-1", id: "msg_1" };
      const content: AssistantMessage["content"] = [];
      if (thinking) {
        yield { type: "thinking-start", id: "0" };
        yield { type: "thinking-delta", id: "0", delta: thinking.text };
        yield { type: "thinking-end", id: "0", thinking: thinking.text, signature: thinking.signature };
        content.push({ type: "thinking", thinking: thinking.text, signature: thinking.signature });
      }
      const id = String(content.length);
      yield { type: "text-start", id };
      for (const delta of deltas) yield { type: "text-delta", id, delta };
      yield { type: "text-end", id, text: deltas.join("") };
      content.push({ type: "text", text: deltas.join("") });
      const usage = {
        input_tokens: 10,
        output_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      };
      yield { type: "usage", usage };
      yield { type: "message-end", message: { role: "assistant", content, stop_reason: stop, usage } };
    },
  };
}

const counter = () => {
  let n = 0;
  return () => `xml_${++n}`;
};

async function run(deltas: string[], stop: StopReason = "end_turn"): Promise<StreamEvent[]> {
  const provider = withXmlToolProtocol(textProvider(deltas, stop), { newId: counter() });
  return collect(provider.stream(simpleRequest({ tools: [READ_TOOL] })));
}

const ANSWER =
  'Let me look.\n<tool_call name="Read">{"file_path": "/w/a.ts"}</tool_call>\n' +
  '<tool_call name="Read">{"file_path": "/w/b \\"q\\".ts"}</tool_call>\nWaiting for results.';

describe("withXmlToolProtocol stream", () => {
  it("parses calls from text split at every position into the same message", async () => {
    const whole = await run([ANSWER]);
    const m = endMessage(whole);
    expect(m.content).toEqual([
      { type: "text", text: "Let me look.\n" },
      { type: "tool_use", id: "xml_1", name: "Read", input: { file_path: "/w/a.ts" } },
      { type: "tool_use", id: "xml_2", name: "Read", input: { file_path: '/w/b "q".ts' } },
      { type: "text", text: "Waiting for results." },
    ]);
    expect(m.stop_reason).toBe("tool_use");
    expect(m.usage?.output_tokens).toBe(20);
    for (let i = 0; i <= ANSWER.length; i++) {
      const split = endMessage(await run([ANSWER.slice(0, i), ANSWER.slice(i)]));
      expect(split).toEqual(m);
    }
    expect(endMessage(await run([...ANSWER]))).toEqual(m);
  });

  it("streams the call's input live through the accumulator", async () => {
    const events = await run([...ANSWER]);
    const starts = events.filter((e) => e.type === "tool-input-start");
    expect(starts).toEqual([
      { type: "tool-input-start", id: "1", toolUseId: "xml_1", name: "Read" },
      { type: "tool-input-start", id: "2", toolUseId: "xml_2", name: "Read" },
    ]);
    const live = events.flatMap((e) => (e.type === "tool-input-delta" && e.id === "2" ? e.strings : []));
    expect(live.map((s) => s.text).join("")).toBe('/w/b "q".ts');
    // No text delta ever carries part of a tag.
    const text = events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
    expect(text).toBe("Let me look.\nWaiting for results.");
  });

  it("ends with end_turn when the text has no calls", async () => {
    const m = endMessage(await run(["Just text, and a <b>tag</b>."]));
    expect(m.content).toEqual([{ type: "text", text: "Just text, and a <b>tag</b>." }]);
    expect(m.stop_reason).toBe("end_turn");
  });

  it("turns bad JSON, unknown attributes and unclosed tags into invalid calls that say why", async () => {
    const bad = endMessage(await run(['<tool_call name="Read">{"file_path": /a}</tool_call>']));
    expect(bad.content).toEqual([
      {
        type: "tool_use",
        id: "xml_1",
        name: "Read",
        input: {},
        raw_input: '{"file_path": /a}',
        input_status: "invalid",
      },
    ]);
    expect(bad.stop_reason).toBe("tool_use");

    const attr = endMessage(await run(['<tool_call nme="Read">{}</tool_call>']));
    expect(attr.content[0]).toMatchObject({
      type: "tool_use",
      name: "",
      input: {},
      input_status: "invalid",
      raw_input: '<tool_call nme="Read">{}</tool_call>',
      meta: { protocolError: expect.stringContaining('unknown attribute "nme"') },
    });

    const unclosed = endMessage(await run(['Reading <tool_call name="Read">{"file_path": "/a"}']));
    expect(unclosed.content[1]).toMatchObject({
      input_status: "invalid",
      raw_input: '{"file_path": "/a"}',
      meta: { protocolError: "the call was not closed with </tool_call>" },
    });
  });

  it("marks a call cut by max_tokens incomplete, not invalid", async () => {
    const m = endMessage(await run(['<tool_call name="Read">{"file_path": "/w/lo'], "max_tokens"));
    expect(m.stop_reason).toBe("max_tokens");
    expect(m.content).toEqual([
      {
        type: "tool_use",
        id: "xml_1",
        name: "Read",
        input: {},
        raw_input: '{"file_path": "/w/lo',
        input_status: "incomplete",
      },
    ]);
  });

  it("passes thinking through with its signature", async () => {
    const provider = withXmlToolProtocol(
      textProvider(['<tool_call name="Read">{"file_path":"/a"}</tool_call>'], "end_turn", [], {
        text: "Plan.",
        signature: "sig",
      }),
      { newId: counter() },
    );
    const m = endMessage(await collect(provider.stream(simpleRequest({ tools: [READ_TOOL] }))));
    expect(m.content).toEqual([
      { type: "thinking", thinking: "Plan.", signature: "sig" },
      { type: "tool_use", id: "xml_1", name: "Read", input: { file_path: "/a" } },
    ]);
  });

  it("works on top of a real adapter (OpenAI Chat), sending no tools", async () => {
    const seen: SeenRequest[] = [];
    const pieces = ["Sure. <tool", '_call name="Read">{"file_', 'path": "/a"}</tool_call>'];
    const body = `${pieces
      .map((content) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`)
      .join(
        "",
      )}data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
    const inner = createOpenAIChatProvider({
      apiKey: "k",
      fetch: fakeFetch([() => chunkedResponse([new TextEncoder().encode(body)])], seen),
    });
    const provider = withXmlToolProtocol(inner, { newId: counter() });
    const m = endMessage(await collect(provider.stream(simpleRequest({ tools: [READ_TOOL] }))));
    expect(m.content).toEqual([
      { type: "text", text: "Sure. " },
      { type: "tool_use", id: "xml_1", name: "Read", input: { file_path: "/a" } },
    ]);
    expect(m.stop_reason).toBe("tool_use");
    const sent = seen[0]?.body as { tools?: unknown; messages: Array<{ role: string; content: string }> };
    expect(sent.tools).toBeUndefined();
    expect(sent.messages[0]?.content).toContain('<tool_call name="TOOL_NAME">');
    expect(sent.messages[0]?.content).toContain("### Read");
  });
});

describe("withXmlToolProtocol requests", () => {
  it("describes the tools in the system prompt and renders history as tags", () => {
    const seen: ModelRequest[] = [];
    const provider = withXmlToolProtocol(textProvider([], "end_turn", seen));
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "Read a.ts" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "xml_1", name: "Read", input: { file_path: "/a.ts" } },
          {
            type: "tool_use",
            id: "xml_2",
            name: "Read",
            input: {},
            raw_input: "{bad",
            input_status: "invalid",
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "xml_1", content: "const a = 1;" },
          { type: "tool_result", tool_use_id: "xml_2", content: "invalid input", is_error: true },
        ],
      },
    ];
    const encoded = provider.encode(simpleRequest({ tools: [READ_TOOL], messages })).body as ModelRequest;
    expect(encoded.tools).toEqual([]);
    expect(encoded.system).toHaveLength(2);
    expect(encoded.system[0]).toEqual({ type: "text", text: "You are terse." });
    expect(encoded.system[1]?.text).toContain(`Input schema: ${JSON.stringify(READ_TOOL.input_schema)}`);
    expect(encoded.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text: 'Reading.\n<tool_call name="Read">{"file_path":"/a.ts"}</tool_call>\n<tool_call name="Read">{bad</tool_call>',
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "text", text: '<tool_result id="xml_1" name="Read">\nconst a = 1;\n</tool_result>' },
          {
            type: "text",
            text: '<tool_result id="xml_2" name="Read" is_error="true">\ninvalid input\n</tool_result>',
          },
        ],
      },
    ]);
  });

  it("leaves a request without tools unchanged", () => {
    const seen: ModelRequest[] = [];
    const provider = withXmlToolProtocol(textProvider([], "end_turn", seen));
    const request = simpleRequest();
    expect(provider.encode(request).body).toBe(request);
  });
});

describe("withXmlToolProtocol: untrusted text", () => {
  it("runs no <tool_call> quoted in a code fence or an inline code span", async () => {
    const text =
      'To read a file, write:\n```\n<tool_call name="Read">{"file_path": "/etc/passwd"}</tool_call>\n```\n' +
      'or inline: `<tool_call name="Read">{}</tool_call>`.';
    const events = await run([text.slice(0, 30), text.slice(30)]);
    const message = endMessage(events);
    expect(message.content).toEqual([{ type: "text", text }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(events.some((e) => e.type === "tool-input-start")).toBe(false);
  });

  it("gives calls unique ids even when the id source repeats one, or the history already holds it", async () => {
    const provider = withXmlToolProtocol(
      textProvider([
        '<tool_call name="Read">{"file_path": "/a"}</tool_call><tool_call name="Read">{"file_path": "/b"}</tool_call>',
      ]),
      { newId: () => "xml_same" },
    );
    const history: Message[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "xml_same", name: "Read", input: { file_path: "/0" } }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "xml_same", content: "zero" }],
      },
    ];
    const message = endMessage(
      await collect(provider.stream(simpleRequest({ tools: [READ_TOOL], messages: history }))),
    );
    expect(message.content.map((b) => (b.type === "tool_use" ? b.id : b.type))).toEqual([
      "xml_same_2",
      "xml_same_3",
    ]);
  });
});
