import type {
  CacheControl,
  ContentBlock,
  ImageBlock,
  Message,
  ServerTool,
  TextBlock,
  ToolDefinition,
} from "../../messages/index.js";
import type { ModelRequest } from "../provider.js";
import { wireToolId } from "./wire-tool-id.js";

/** A Messages API request body (the subset mitsu writes; vendor options may add more). */
export type AnthropicRequestBody = Record<string, unknown>;

/**
 * The neutral request as a Messages API body, `stream: true`. Blocks are rebuilt field by field, so neutral-only
 * fields (`raw_input`, `input_status`, `meta`) never reach the wire. The output is a pure function of the request:
 * the same history always encodes to the same bytes, which the prompt cache needs.
 * `providerOptions.anthropic` is merged in last (e.g. `metadata`, `top_k`, `container`), so it may override.
 */
export function encodeAnthropicRequest(request: ModelRequest): AnthropicRequestBody {
  const body: AnthropicRequestBody = { model: request.model, max_tokens: request.maxTokens };
  if (request.system.length > 0) body.system = request.system.map(encodeText);
  const tools = [...request.tools.map(encodeTool), ...(request.serverTools ?? []).map(encodeServerTool)];
  if (tools.length > 0) body.tools = tools;
  body.messages = encodeMessages(request.messages);
  body.stream = true;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    body.stop_sequences = request.stopSequences;
  }
  if (request.thinkingBudget !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: request.thinkingBudget };
  }
  const vendor = request.providerOptions?.anthropic;
  return vendor ? { ...body, ...vendor } : body;
}

/** `eager_input_streaming` is sent exactly as defined: true, an explicit false (which beats the beta header), or absent. */
export function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema,
  };
  if (tool.eager_input_streaming !== undefined) out.eager_input_streaming = tool.eager_input_streaming;
  withCache(out, tool.cache_control);
  return out;
}

/** A server tool as the Messages API names it: `web_search` is the versioned `web_search_20250305`. */
export function encodeServerTool(tool: ServerTool): Record<string, unknown> {
  const out: Record<string, unknown> = { type: "web_search_20250305", name: "web_search" };
  if (tool.maxUses !== undefined) out.max_uses = tool.maxUses;
  if (tool.allowedDomains?.length) out.allowed_domains = tool.allowedDomains;
  else if (tool.blockedDomains?.length) out.blocked_domains = tool.blockedDomains;
  return out;
}

/**
 * A message whose blocks all stay behind (another provider's unsigned thinking or unknown blocks, an empty text
 * left by an aborted turn) is skipped: the API rejects empty content, and takes adjacent same-role messages as one.
 */
function encodeMessages(messages: Message[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const message of messages) {
    const content: Record<string, unknown>[] = [];
    for (const block of message.content) {
      const wire = encodeBlock(block);
      if (wire) content.push(wire);
    }
    if (content.length > 0) out.push({ role: message.role, content });
  }
  return out;
}

/** One wire block, or undefined for a block this API must not receive. */
export function encodeBlock(block: ContentBlock): Record<string, unknown> | undefined {
  switch (block.type) {
    case "text":
      // The API rejects empty text blocks; an aborted turn can leave one behind.
      return block.text === "" && !block.cache_control ? undefined : encodeText(block);
    case "thinking":
      // Without Anthropic's signature the API rejects the block (thinking from another provider, or cut short).
      return block.signature
        ? { type: "thinking", thinking: block.thinking, signature: block.signature }
        : undefined;
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "image":
      return withCache({ type: "image", source: encodeImageSource(block.source) }, block.cache_control);
    case "tool_use":
      // Input that was not received whole is sent as {}: the raw text is not an object and must not be replayed.
      return withCache(
        {
          type: "tool_use",
          id: wireToolId(block.id),
          name: block.name,
          input: block.input_status === undefined ? block.input : {},
        },
        block.cache_control,
      );
    case "tool_result": {
      const out: Record<string, unknown> = {
        type: "tool_result",
        tool_use_id: wireToolId(block.tool_use_id),
        content:
          typeof block.content === "string"
            ? block.content
            : block.content.map((part) =>
                part.type === "text"
                  ? encodeText(part)
                  : withCache({ type: "image", source: encodeImageSource(part.source) }, part.cache_control),
              ),
      };
      if (block.is_error !== undefined) out.is_error = block.is_error;
      return withCache(out, block.cache_control);
    }
    case "unknown":
      // Kept verbatim for the API that produced it; meaningless to the others.
      return block.provider === "anthropic" ? block.data : undefined;
  }
}

function encodeText(block: TextBlock): Record<string, unknown> {
  return withCache({ type: "text", text: block.text }, block.cache_control);
}

function encodeImageSource(source: ImageBlock["source"]): Record<string, unknown> {
  return source.type === "base64"
    ? { type: "base64", media_type: source.media_type, data: source.data }
    : { type: "url", url: source.url };
}

function withCache(out: Record<string, unknown>, cache: CacheControl | undefined): Record<string, unknown> {
  if (cache) out.cache_control = cache.ttl ? { type: cache.type, ttl: cache.ttl } : { type: cache.type };
  return out;
}
