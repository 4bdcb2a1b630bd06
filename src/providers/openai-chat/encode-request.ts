import type {
  AssistantMessage,
  ImageBlock,
  Message,
  ToolDefinition,
  UserMessage,
} from "../../messages/index.js";
import { splitMarkedToolResult } from "../encode/split-marked-tool-result.js";
import { imageUrl, toolArguments } from "../encode/tool-result-content.js";
import type { ModelRequest } from "../provider.js";
import type { OpenAIChatQuirks } from "./quirks.js";

export interface OpenAIChatEncodeOptions {
  quirks: OpenAIChatQuirks;
  /** Sent as `reasoning_effort` (OpenAI o-series / gpt-5, and servers that copy it). Absent: not sent. */
  reasoningEffort?: string;
}

type WireMessage = Record<string, unknown>;
type WirePart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/**
 * The neutral request as a Chat Completions body, `stream: true`.
 *
 * - System blocks joined into one `system` (or `developer`) message: a plain string, which every compatible
 *   server accepts.
 * - A user message's tool results become one role `tool` message each (`tool_call_id`), placed first, since
 *   they must follow the assistant's `tool_calls` directly. `is_error` results are prefixed `[error] ` (the wire
 *   has no flag for it). Images in results cannot go in a `tool` message: the result text notes them and they
 *   follow in the user message after the tool messages, with the user's own text and images.
 * - Assistant text joined into `content`; `tool_use` blocks as `tool_calls` (arguments: the exact text received
 *   when it did not parse, else the input as JSON). Thinking is dropped: Chat Completions takes none back.
 * - `providerOptions["openai-chat"]` is merged in last (e.g. Ollama's `options`, OpenRouter's `provider`).
 */
export function encodeOpenAIChatRequest(
  request: ModelRequest,
  options: OpenAIChatEncodeOptions,
): Record<string, unknown> {
  const { quirks } = options;
  const messages: WireMessage[] = [];
  const system = request.system.map((b) => b.text).join("\n\n");
  if (system !== "") messages.push({ role: quirks.systemRole, content: system });
  for (const message of request.messages) messages.push(...encodeMessage(message));

  const body: Record<string, unknown> = { model: request.model, messages };
  if (request.tools.length > 0) body.tools = request.tools.map(encodeTool);
  body.stream = true;
  if (quirks.supportsStreamUsage) body.stream_options = { include_usage: true };
  body[quirks.maxTokensField] = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    body.stop = request.stopSequences;
  if (options.reasoningEffort !== undefined) body.reasoning_effort = options.reasoningEffort;
  const vendor = request.providerOptions?.["openai-chat"];
  return vendor ? { ...body, ...vendor } : body;
}

export function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
  };
}

function encodeMessage(message: Message): WireMessage[] {
  return message.role === "user" ? encodeUser(message) : [encodeAssistant(message)];
}

function encodeUser(message: UserMessage): WireMessage[] {
  const toolMessages: WireMessage[] = [];
  const parts: WirePart[] = [];
  const resultImages: WirePart[] = [];
  for (const block of message.content) {
    if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") parts.push(imagePart(block));
    else if (block.type === "tool_result") {
      const { text, images } = splitMarkedToolResult(block);
      let content = text;
      if (images.length > 0) {
        const note = `[${images.length} image${images.length === 1 ? "" : "s"} in the next user message]`;
        content = content === "" ? note : `${content}\n${note}`;
        resultImages.push({ type: "text", text: `Images from tool result ${block.tool_use_id}:` });
        for (const image of images) resultImages.push(imagePart(image));
      }
      toolMessages.push({ role: "tool", tool_call_id: block.tool_use_id, content });
    }
    // thinking, tool_use and unknown blocks have no place in a user message on this wire.
  }
  const all = [...resultImages, ...parts];
  if (all.length === 0) return toolMessages;
  const onlyText = all.every((p) => p.type === "text");
  const content = onlyText ? all.map((p) => (p as { text: string }).text).join("\n\n") : all;
  return [...toolMessages, { role: "user", content }];
}

function encodeAssistant(message: AssistantMessage): WireMessage {
  const texts: string[] = [];
  const toolCalls: Record<string, unknown>[] = [];
  for (const block of message.content) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "tool_use") {
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: toolArguments(block) },
      });
    }
  }
  const wire: WireMessage = { role: "assistant" };
  const text = texts.join("");
  // OpenAI wants `content: null` beside tool calls with no text; an empty string elsewhere.
  wire.content = text === "" && toolCalls.length > 0 ? null : text;
  if (toolCalls.length > 0) wire.tool_calls = toolCalls;
  return wire;
}

function imagePart(block: ImageBlock): WirePart {
  return { type: "image_url", image_url: { url: imageUrl(block) } };
}
