import type { ContentBlock, ImageBlock, Message, ToolResultBlock } from "../messages/index.js";
import { imageDimensions } from "./image-dimensions.js";
import { imageTokens } from "./image-tokens.js";

/** Characters per token of the estimate; real counts need the provider's tokenizer. */
export const CHARS_PER_TOKEN = 4;

/** The JSON around an image's data (`{"type":"image","source":{…}}`), in tokens. */
const IMAGE_FRAME_TOKENS = 25;

/** An estimate of what a value weighs on the wire: the characters of its JSON / 4, rounded up. */
export function estimateJsonTokens(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Math.ceil(json.length / CHARS_PER_TOKEN);
}

/** Estimates of stable values (a session's system prompt and tools, the same arrays every turn). */
const stableCache = new WeakMap<object, number>();

/** `estimateJsonTokens` of a value that is never changed once made (system blocks, tool definitions): made once. */
export function estimateStableTokens(value: object): number {
  let tokens = stableCache.get(value);
  if (tokens === undefined) {
    tokens = estimateJsonTokens(value);
    stableCache.set(value, tokens);
  }
  return tokens;
}

/**
 * The length of `JSON.stringify(text)` without making that string: the quotes, and one more character for each
 * one JSON escapes (`\n`, `\"`, …; five more for the other control characters). A 100 KB tool result is measured
 * without a 100 KB copy.
 */
export function jsonStringLength(text: string): number {
  let length = text.length + 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c === 10 || c === 13 || c === 9 || c === 8 || c === 12) length++;
    else if (c < 32) length += 5;
  }
  return length;
}

/** The characters of a text block's JSON (`{"type":"text","text":…}`), its other fields (cache_control) aside. */
const textChars = (text: string) => 22 + jsonStringLength(text);

/**
 * What an image block costs: by its pixels, read from its header, with the provider's rule (see `imageTokens`),
 * never by the length of its base64 (a 3 MB PNG is about 1,600 tokens, not a million).
 */
export function estimateImageTokens(block: ImageBlock, api?: string): number {
  const dimensions = block.source.type === "base64" ? imageDimensions(block.source.data) : undefined;
  return IMAGE_FRAME_TOKENS + imageTokens(dimensions, api);
}

function toolResultTokens(block: ToolResultBlock, api: string | undefined): number {
  // {"type":"tool_result","tool_use_id":"…","content":…} and "is_error":true when set.
  let chars = 48 + block.tool_use_id.length + (block.is_error ? 16 : 0);
  let tokens = 0;
  if (typeof block.content === "string") chars += jsonStringLength(block.content);
  else
    for (const part of block.content) {
      if (part.type === "image") tokens += estimateImageTokens(part, api);
      else if (part.type === "text") chars += textChars(part.text) + 1;
      else chars += (JSON.stringify(part)?.length ?? 0) + 1;
    }
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The estimated tokens of one content block (images by their pixels, the rest by the length of its JSON). */
export function estimateBlockTokens(block: ContentBlock, api?: string): number {
  if (block.type === "image") return estimateImageTokens(block, api);
  if (block.type === "tool_result") return toolResultTokens(block, api);
  if (block.type === "text" && block.cache_control === undefined && block.meta === undefined)
    return Math.ceil(textChars(block.text) / CHARS_PER_TOKEN);
  return estimateJsonTokens(block);
}

/** Estimates already made, per message object and protocol (a message is not changed once in a transcript). */
const cache = new WeakMap<Message, { api: string | undefined; tokens: number }>();

/** The estimated tokens of one message: its blocks, and the JSON around them. Cached per message object. */
export function estimateMessageTokens(message: Message, api?: string): number {
  const hit = cache.get(message);
  if (hit && hit.api === api) return hit.tokens;
  let tokens = 4;
  if (typeof message.content === "string") tokens += estimateJsonTokens(message.content);
  else for (const block of message.content) tokens += estimateBlockTokens(block, api);
  cache.set(message, { api, tokens });
  return tokens;
}

/** The estimated tokens of `messages` (see `estimateMessageTokens`). */
export function estimateMessagesTokens(messages: readonly Message[], api?: string): number {
  let tokens = 0;
  for (const message of messages) tokens += estimateMessageTokens(message, api);
  return tokens;
}

/**
 * What the server last reported for this transcript: the input of the newest request it records (the last
 * assistant message's usage: fresh + cache reads + cache writes, plus its output, which is now part of the
 * input), and an estimate for the messages after it. Undefined when no answer reported any usage.
 */
export function reportedTokens(messages: readonly Message[], api?: string): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role !== "assistant" || !message.usage) continue;
    const u = message.usage;
    const sent = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    if (sent === 0) continue;
    return sent + u.output_tokens + estimateMessagesTokens(messages.slice(i + 1), api);
  }
  return undefined;
}

/**
 * How many tokens `messages` (with the request's `system` and `tools`, `fixedTokens`) will be when sent: the
 * larger of what the server reported (see `reportedTokens`) and the estimate of every message. The server's
 * word alone is not trusted: one that under-reports (or reports nothing) would let a request pass the window.
 * Cheap on a long transcript: each message's estimate is made once.
 */
export function contextTokens(messages: readonly Message[], fixedTokens = 0, api?: string): number {
  const estimated = fixedTokens + estimateMessagesTokens(messages, api);
  return Math.max(estimated, reportedTokens(messages, api) ?? 0);
}
