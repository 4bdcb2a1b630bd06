import type {
  AssistantMessage,
  ImageBlock,
  Message,
  ServerTool,
  ToolDefinition,
  UserMessage,
} from "../../messages/index.js";
import { splitMarkedToolResult } from "../encode/split-marked-tool-result.js";
import { imageUrl, toolArguments } from "../encode/tool-result-content.js";
import { isPlainObject } from "../is-plain-object.js";
import type { ModelRequest } from "../provider.js";

/** The key under which this adapter keeps its data in block meta (`meta["openai-responses"]`). */
export const RESPONSES_META = "openai-responses";

/** What a block's meta holds for this wire: the reasoning item to send back, or a message's phase. */
export interface ResponsesBlockMeta {
  /** A reasoning output item as received (`id`, `summary`, `encrypted_content`), sent back unchanged. */
  reasoning?: Record<string, unknown>;
  /** `commentary` or `final_answer` on an assistant message; newer models want it sent back. */
  phase?: string;
}

export interface ResponsesEncodeOptions {
  /** `reasoning.effort`; when absent, derived from `thinkingBudget` if the request has one. */
  reasoningEffort?: string;
  /** `reasoning.summary` (default `auto` whenever reasoning is configured), so thinking text streams. */
  reasoningSummary?: string;
  /** Default false: the conversation is sent whole each turn and reasoning travels encrypted. */
  store?: boolean;
}

type Item = Record<string, unknown>;

/**
 * The neutral request as a Responses API body, `stream: true`, stateless by default (`store: false` with
 * `include: ["reasoning.encrypted_content"]`), so each request carries the whole conversation.
 *
 * - System blocks joined into `instructions`.
 * - User text and images as a `message` item (`input_text`, `input_image`); tool results as
 *   `function_call_output` items placed first, text as a string, or a list with `input_image`s when the result
 *   has images. `is_error` results are prefixed `[error] ` (the wire has no flag).
 * - Assistant blocks in order: a thinking block that carries a reasoning item (block meta) becomes that item
 *   again; other thinking is dropped (it cannot be verified). Text becomes an assistant `message` (with its
 *   `phase`), `tool_use` a `function_call` (arguments: the exact text received when it did not parse).
 *   Unknown blocks from this wire (e.g. a web search call) are sent back verbatim.
 * - Stop sequences do not exist on this API and are not sent. `providerOptions["openai-responses"]` is merged last.
 */
export function encodeResponsesRequest(
  request: ModelRequest,
  options: ResponsesEncodeOptions = {},
): Record<string, unknown> {
  const input: Item[] = [];
  for (const message of request.messages) input.push(...encodeMessage(message));
  const body: Record<string, unknown> = { model: request.model };
  const instructions = request.system.map((b) => b.text).join("\n\n");
  if (instructions !== "") body.instructions = instructions;
  body.input = input;
  const tools = [...request.tools.map(encodeTool), ...(request.serverTools ?? []).map(encodeServerTool)];
  if (tools.length > 0) body.tools = tools;
  body.stream = true;
  body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  const effort = options.reasoningEffort ?? effortForBudget(request.thinkingBudget);
  if (effort !== undefined) body.reasoning = { effort, summary: options.reasoningSummary ?? "auto" };
  body.store = options.store ?? false;
  const include: string[] = [];
  if (body.store === false) include.push("reasoning.encrypted_content");
  // A search's pages are only listed in its `web_search_call` item when asked for.
  if (request.serverTools?.some((tool) => tool.type === "web_search"))
    include.push("web_search_call.action.sources");
  if (include.length > 0) body.include = include;
  const vendor = request.providerOptions?.[RESPONSES_META];
  return vendor ? { ...body, ...vendor } : body;
}

export function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  return {
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.input_schema,
    strict: false,
  };
}

/** A thinking budget in tokens as an effort level (the Responses API has no budget). */
function effortForBudget(budget: number | undefined): string | undefined {
  if (budget === undefined) return undefined;
  if (budget < 4096) return "low";
  if (budget < 16384) return "medium";
  return "high";
}

function encodeMessage(message: Message): Item[] {
  return message.role === "user" ? encodeUser(message) : encodeAssistant(message);
}

function encodeUser(message: UserMessage): Item[] {
  const outputs: Item[] = [];
  const content: Item[] = [];
  for (const block of message.content) {
    if (block.type === "text") content.push({ type: "input_text", text: block.text });
    else if (block.type === "image") content.push(inputImage(block));
    else if (block.type === "tool_result") {
      const { text, images } = splitMarkedToolResult(block);
      const output = images.length === 0 ? text : [{ type: "input_text", text }, ...images.map(inputImage)];
      outputs.push({ type: "function_call_output", call_id: block.tool_use_id, output });
    }
  }
  if (content.length > 0) outputs.push({ type: "message", role: "user", content });
  return outputs;
}

function encodeAssistant(message: AssistantMessage): Item[] {
  const items: Item[] = [];
  let text: { parts: string[]; phase?: string } | undefined;
  const flushText = () => {
    if (!text) return;
    const item: Item = { type: "message", role: "assistant", content: text.parts.join("") };
    if (text.phase !== undefined) item.phase = text.phase;
    items.push(item);
    text = undefined;
  };
  for (const block of message.content) {
    if (block.type === "text") {
      const phase = responsesMeta(block.meta)?.phase;
      if (text && text.phase !== phase) flushText();
      text ??= phase === undefined ? { parts: [] } : { parts: [], phase };
      text.parts.push(block.text);
      continue;
    }
    flushText();
    if (block.type === "thinking") {
      const reasoning = responsesMeta(block.meta)?.reasoning;
      if (reasoning) items.push({ ...reasoning, type: "reasoning" });
    } else if (block.type === "tool_use") {
      items.push({
        type: "function_call",
        call_id: block.id,
        name: block.name,
        arguments: toolArguments(block),
      });
    } else if (block.type === "unknown" && block.provider === RESPONSES_META) {
      items.push(block.data);
    }
  }
  flushText();
  return items;
}

export function responsesMeta(meta: Record<string, unknown> | undefined): ResponsesBlockMeta | undefined {
  const value = meta?.[RESPONSES_META];
  return isPlainObject(value) ? (value as ResponsesBlockMeta) : undefined;
}

function inputImage(block: ImageBlock): Item {
  return { type: "input_image", image_url: imageUrl(block), detail: "auto" };
}

/** A server tool in Responses terms: `web_search`, its domain list as `filters.allowed_domains`. */
export function encodeServerTool(tool: ServerTool): Record<string, unknown> {
  const out: Record<string, unknown> = { type: "web_search" };
  if (tool.allowedDomains?.length) out.filters = { allowed_domains: tool.allowedDomains };
  return out;
}
