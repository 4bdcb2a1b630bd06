import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import { createGeminiProvider } from "../../src/providers/gemini/gemini-provider.js";
import { createOpenAIChatProvider } from "../../src/providers/openai-chat/openai-chat-provider.js";
import { createOpenAIResponsesProvider } from "../../src/providers/openai-responses/openai-responses-provider.js";
import type { Provider } from "../../src/providers/provider.js";
import { withXmlToolProtocol } from "../../src/providers/xml/with-xml-tool-protocol.js";
import type { SimBlock, SimProtocol, SimTurn, Simulator } from "../../src/simulator/index.js";

/** A tool call as a request carried it back to the model (the assistant turn before the results). */
export interface WireCall {
  /** The call's id on the wire; undefined where the wire has none (Gemini's simulator, XML tags). */
  id: string | undefined;
  name: string;
  /** The arguments text as sent. */
  args: string;
}

/** A tool result as a request carried it to the model, read in the protocol's own terms. */
export interface WireResult {
  /** The id of the call it answers; undefined where the wire pairs by name (Gemini without call ids). */
  id: string | undefined;
  /** The name of the call it answers, where the wire says it (Gemini, XML tags). */
  name: string | undefined;
  text: string;
  isError: boolean;
}

/** Test seams handed to the adapter under test. */
export interface Seams {
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The idle limits (tiny in tests; see `IdleOptions`). */
  idleTimeoutMs?: number;
  stallWarningMs?: number;
}

type Body = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: wire bodies are read field by field, in each protocol's terms
type Json = any;

/**
 * One adapter under the conformance suite: how to build it against the simulator, how its model writes a
 * neutral scripted turn, and how to read what it sent back out of a logged request body.
 */
export interface ConformanceAdapter {
  name: string;
  /** The simulator endpoint its requests arrive on. */
  protocol: SimProtocol;
  model: string;
  /** The XML-tag protocol on top of an inner adapter (tool calls are text). */
  xml: boolean;
  provider(sim: Simulator, seams?: Seams): Provider;
  /** The scripted turn as this adapter's model writes it (XML: tool calls become tags in the text). */
  turn(turn: SimTurn): SimTurn;
  /** Whether the calls sent back carry their ids. */
  callIds: boolean;
  /** Whether the results sent back name the call they answer by id (else by name). */
  resultIds: boolean;
  /** The tool calls of the last assistant turn in a request body. */
  calls(body: Body): WireCall[];
  /** The tool results of the last user turn in a request body, in order. */
  results(body: Body): WireResult[];
  /** Images carried in the last user turn (tool results' images wherever the wire puts them). */
  images(body: Body): number;
  /** The output limit the request asked for. */
  maxTokens(body: Body): number | undefined;
}

function lastIndex<T>(list: readonly T[], test: (item: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i] as T)) return i;
  return -1;
}

function blocks(content: Json): Json[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : (content ?? []);
}

function textOf(content: Json): string {
  return blocks(content)
    .filter((b: Json) => b.type === "text")
    .map((b: Json) => b.text)
    .join("\n\n");
}

/** "[error] " is how the OpenAI wires flag an error result (they have no field for it). */
function openAIResult(id: string, output: string): WireResult {
  const isError = output.startsWith("[error] ");
  return { id, name: undefined, text: isError ? output.slice(8) : output, isError };
}

const anthropicWire = {
  lastAssistantText(body: Json): string {
    const messages: Json[] = body.messages;
    return textOf(messages[lastIndex(messages, (m) => m.role === "assistant")]?.content);
  },
  lastUserText(body: Json): string {
    return textOf(body.messages.at(-1)?.content);
  },
  calls(body: Json): WireCall[] {
    const messages: Json[] = body.messages;
    const assistant = messages[lastIndex(messages, (m) => m.role === "assistant")];
    return blocks(assistant?.content)
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: b.id, name: b.name, args: JSON.stringify(b.input) }));
  },
  results(body: Json): WireResult[] {
    return blocks(body.messages.at(-1)?.content)
      .filter((b) => b.type === "tool_result")
      .map((b) => ({
        id: b.tool_use_id,
        name: undefined,
        text: textOf(b.content),
        isError: b.is_error === true,
      }));
  },
  images(body: Json): number {
    let n = 0;
    for (const b of blocks(body.messages.at(-1)?.content)) {
      if (b.type === "image") n++;
      if (b.type === "tool_result") n += blocks(b.content).filter((p) => p.type === "image").length;
    }
    return n;
  },
};

const chatWire = {
  /** The messages after the last assistant message: the tool messages and the user message. */
  trailing(body: Json): Json[] {
    const messages: Json[] = body.messages;
    return messages.slice(lastIndex(messages, (m) => m.role === "assistant") + 1);
  },
  lastAssistantText(body: Json): string {
    const messages: Json[] = body.messages;
    return messages[lastIndex(messages, (m) => m.role === "assistant")]?.content ?? "";
  },
  lastUserText(body: Json): string {
    return chatWire
      .trailing(body)
      .filter((m) => m.role === "user")
      .map((m) => (typeof m.content === "string" ? m.content : textOf(m.content)))
      .join("\n\n");
  },
  calls(body: Json): WireCall[] {
    const messages: Json[] = body.messages;
    const assistant = messages[lastIndex(messages, (m) => m.role === "assistant")];
    return (assistant?.tool_calls ?? []).map((c: Json) => ({
      id: c.id,
      name: c.function.name,
      args: c.function.arguments,
    }));
  },
  results(body: Json): WireResult[] {
    return chatWire
      .trailing(body)
      .filter((m) => m.role === "tool")
      .map((m) => openAIResult(m.tool_call_id, m.content));
  },
  images(body: Json): number {
    return chatWire
      .trailing(body)
      .filter((m) => m.role === "user" && Array.isArray(m.content))
      .flatMap((m) => m.content)
      .filter((p: Json) => p.type === "image_url").length;
  },
};

const isResponsesAssistantItem = (item: Json) =>
  item.type === "function_call" ||
  item.type === "reasoning" ||
  (item.type === "message" && item.role === "assistant");

const responsesWire = {
  trailingStart(input: Json[]): number {
    return lastIndex(input, isResponsesAssistantItem) + 1;
  },
  calls(body: Json): WireCall[] {
    const input: Json[] = body.input;
    const end = responsesWire.trailingStart(input);
    let start = end;
    while (start > 0 && isResponsesAssistantItem(input[start - 1])) start--;
    return input
      .slice(start, end)
      .filter((item) => item.type === "function_call")
      .map((item) => ({ id: item.call_id, name: item.name, args: item.arguments }));
  },
  results(body: Json): WireResult[] {
    const input: Json[] = body.input;
    return input
      .slice(responsesWire.trailingStart(input))
      .filter((item) => item.type === "function_call_output")
      .map((item) => {
        const output = typeof item.output === "string" ? item.output : textOfResponsesParts(item.output);
        return openAIResult(item.call_id, output);
      });
  },
  images(body: Json): number {
    const input: Json[] = body.input;
    let n = 0;
    for (const item of input.slice(responsesWire.trailingStart(input))) {
      const parts = item.type === "function_call_output" ? item.output : item.content;
      if (Array.isArray(parts)) n += parts.filter((p: Json) => p.type === "input_image").length;
    }
    return n;
  },
};

function textOfResponsesParts(parts: Json[]): string {
  return parts
    .filter((p) => p.type === "input_text")
    .map((p) => p.text)
    .join("\n\n");
}

const geminiWire = {
  calls(body: Json): WireCall[] {
    const contents: Json[] = body.contents;
    const model = contents[lastIndex(contents, (c) => c.role === "model")];
    return (model?.parts ?? [])
      .filter((p: Json) => p.functionCall)
      .map((p: Json) => ({
        id: p.functionCall.id,
        name: p.functionCall.name,
        args: JSON.stringify(p.functionCall.args),
      }));
  },
  results(body: Json): WireResult[] {
    return (body.contents.at(-1)?.parts ?? [])
      .filter((p: Json) => p.functionResponse)
      .map((p: Json) => {
        const { id, name, response } = p.functionResponse;
        const isError = "error" in response;
        return { id, name, text: isError ? response.error : response.content, isError };
      });
  },
  images(body: Json): number {
    return (body.contents.at(-1)?.parts ?? []).filter((p: Json) => p.inlineData || p.fileData).length;
  },
};

const TOOL_CALL_TAG = /<tool_call name="([^"]*)">([\s\S]*?)<\/tool_call>/g;
const TOOL_RESULT_TAG =
  /<tool_result id="([^"]*)"(?: name="([^"]*)")?( is_error="true")?>\n([\s\S]*?)\n<\/tool_result>/g;

/** The XML protocol's calls and results, read from the text its inner wire carried. */
function xmlWire(inner: { lastAssistantText(body: Json): string; lastUserText(body: Json): string }) {
  return {
    calls(body: Json): WireCall[] {
      return [...inner.lastAssistantText(body).matchAll(TOOL_CALL_TAG)].map((m) => ({
        id: undefined,
        name: m[1] ?? "",
        args: m[2] ?? "",
      }));
    },
    results(body: Json): WireResult[] {
      return [...inner.lastUserText(body).matchAll(TOOL_RESULT_TAG)].map((m) => ({
        id: m[1],
        name: m[2],
        text: m[4] ?? "",
        isError: m[3] !== undefined,
      }));
    },
  };
}

/** A model without function calling writes its calls as tags in its text. */
export function xmlTurn(turn: SimTurn): SimTurn {
  const content: SimBlock[] = [];
  for (const block of turn.content) {
    const text =
      block.type === "tool_use"
        ? `<tool_call name="${block.name}">${"rawInput" in block ? block.rawInput : JSON.stringify(block.input)}</tool_call>`
        : block.type === "text"
          ? block.text
          : undefined;
    const last = content.at(-1);
    if (text === undefined) content.push(block);
    else if (last?.type === "text")
      content[content.length - 1] = { type: "text", text: `${last.text}\n${text}` };
    else content.push({ type: "text", text });
  }
  const out: SimTurn = { ...turn, content };
  // The inner model ends its turn normally; the XML adapter makes it tool_use.
  if (turn.stopReason === "tool_use") delete out.stopReason;
  return out;
}

const same = (turn: SimTurn) => turn;

const anthropic = (sim: Simulator, seams: Seams = {}) =>
  createAnthropicProvider({ apiKey: "sim-key", baseURL: sim.url, ...seams });
const openAIChat = (sim: Simulator, seams: Seams = {}) =>
  createOpenAIChatProvider({ apiKey: "sim-key", baseURL: `${sim.url}/v1`, ...seams });

/** Every adapter of issue 6, and the XML protocol on top of two of them. */
export const ADAPTERS: ConformanceAdapter[] = [
  {
    name: "anthropic",
    protocol: "anthropic",
    model: "claude-sonnet-4-5",
    xml: false,
    provider: anthropic,
    turn: same,
    callIds: true,
    resultIds: true,
    calls: anthropicWire.calls,
    results: anthropicWire.results,
    images: anthropicWire.images,
    maxTokens: (body) => body.max_tokens as number | undefined,
  },
  {
    name: "openai-chat",
    protocol: "openai-chat",
    model: "gpt-5",
    xml: false,
    provider: openAIChat,
    turn: same,
    callIds: true,
    resultIds: true,
    calls: chatWire.calls,
    results: chatWire.results,
    images: chatWire.images,
    maxTokens: (body) => (body.max_completion_tokens ?? body.max_tokens) as number | undefined,
  },
  {
    name: "openai-responses",
    protocol: "openai-responses",
    model: "gpt-5",
    xml: false,
    provider: (sim, seams = {}) =>
      createOpenAIResponsesProvider({ apiKey: "sim-key", baseURL: `${sim.url}/v1`, ...seams }),
    turn: same,
    callIds: true,
    resultIds: true,
    calls: responsesWire.calls,
    results: responsesWire.results,
    images: responsesWire.images,
    maxTokens: (body) => body.max_output_tokens as number | undefined,
  },
  {
    name: "gemini",
    protocol: "gemini",
    model: "gemini-2.5-pro",
    xml: false,
    provider: (sim, seams = {}) => createGeminiProvider({ apiKey: "sim-key", baseURL: sim.url, ...seams }),
    turn: same,
    callIds: false,
    resultIds: false,
    calls: geminiWire.calls,
    results: geminiWire.results,
    images: geminiWire.images,
    maxTokens: (body) => (body.generationConfig as Json)?.maxOutputTokens,
  },
  {
    name: "xml over openai-chat",
    protocol: "openai-chat",
    model: "gpt-5",
    xml: true,
    provider: (sim, seams) => withXmlToolProtocol(openAIChat(sim, seams)),
    turn: xmlTurn,
    callIds: false,
    resultIds: true,
    ...xmlWire(chatWire),
    images: chatWire.images,
    maxTokens: (body) => (body.max_completion_tokens ?? body.max_tokens) as number | undefined,
  },
  {
    name: "xml over anthropic",
    protocol: "anthropic",
    model: "claude-sonnet-4-5",
    xml: true,
    provider: (sim, seams) => withXmlToolProtocol(anthropic(sim, seams)),
    turn: xmlTurn,
    callIds: false,
    resultIds: true,
    ...xmlWire(anthropicWire),
    images: anthropicWire.images,
    maxTokens: (body) => body.max_tokens as number | undefined,
  },
];
