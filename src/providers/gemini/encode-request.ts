import type {
  AssistantMessage,
  BlockMeta,
  ImageBlock,
  ToolDefinition,
  ToolUseBlock,
  UserMessage,
} from "../../messages/index.js";
import { splitToolResult } from "../encode/tool-result-content.js";
import { isPlainObject } from "../is-plain-object.js";
import type { ModelRequest } from "../provider.js";
import { toGeminiSchema } from "./gemini-schema.js";

/** The key under which this adapter keeps its data in block meta (`meta.gemini`). */
export const GEMINI_META = "gemini";

/** What a block's meta holds for Gemini. */
export interface GeminiBlockMeta {
  /** Sent back on the part it came with; Gemini 3 rejects a function call turn without it. */
  thoughtSignature?: string;
  /** The call had no id on the wire and mitsu made one: it is not sent back. */
  syntheticId?: boolean;
}

type Part = Record<string, unknown>;
type Content = { role: "user" | "model"; parts: Part[] };

/**
 * The neutral request as a `streamGenerateContent` body.
 *
 * - System blocks → `systemInstruction.parts`; tools → one `functionDeclarations` list, each schema converted to
 *   Gemini's subset (see `toGeminiSchema`).
 * - User text → `text`, images → `inlineData` (base64) or `fileData` (URL); tool results → `functionResponse`
 *   parts `{name, response: {content}}` (or `{error}` when `is_error`), named after the call they answer, with
 *   the call's id when Gemini gave one; images in results follow as `inlineData`/`fileData` parts.
 * - Assistant blocks (role `model`) in order: text, thinking that carries a Gemini signature (`thought: true`; other
 *   thinking is dropped), `functionCall {name, args, id?}`, each with the `thoughtSignature` it came with.
 *   Unparsed call input goes back as `args: {}` (the result tells the model what was wrong).
 * - Empty text parts are left out unless they carry a signature; messages with no parts left are skipped
 *   (Gemini rejects both).
 * - `generationConfig`: `maxOutputTokens`, `temperature`, `stopSequences`, and `thinkingConfig {thinkingBudget,
 *   includeThoughts: true}` when the request has a budget. `providerOptions.gemini` is merged in last.
 */
export function encodeGeminiRequest(request: ModelRequest): Record<string, unknown> {
  const names = new Map<string, ToolUseBlock>();
  const contents: Content[] = [];
  for (const message of request.messages) {
    const content = message.role === "user" ? encodeUser(message, names) : encodeAssistant(message, names);
    if (content.parts.length > 0) contents.push(content);
  }
  const body: Record<string, unknown> = { contents };
  const system = request.system.map((b) => ({ text: b.text }));
  if (system.length > 0) body.systemInstruction = { parts: system };
  const tools: Record<string, unknown>[] = [];
  if (request.tools.length > 0) tools.push({ functionDeclarations: request.tools.map(encodeTool) });
  // Grounding with Google Search: the one server tool Gemini has (it takes no domain lists).
  if (request.serverTools?.some((tool) => tool.type === "web_search")) tools.push({ googleSearch: {} });
  if (tools.length > 0) body.tools = tools;
  const config: Record<string, unknown> = { maxOutputTokens: request.maxTokens };
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    config.stopSequences = request.stopSequences;
  }
  if (request.thinkingBudget !== undefined) {
    config.thinkingConfig = { thinkingBudget: request.thinkingBudget, includeThoughts: true };
  }
  body.generationConfig = config;
  const vendor = request.providerOptions?.[GEMINI_META];
  return vendor ? { ...body, ...vendor } : body;
}

export function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = { name: tool.name, description: tool.description };
  const parameters = toGeminiSchema(tool.input_schema);
  if (parameters) out.parameters = parameters;
  return out;
}

function encodeUser(message: UserMessage, calls: Map<string, ToolUseBlock>): Content {
  const parts: Part[] = [];
  const after: Part[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      if (block.text !== "") parts.push({ text: block.text });
    } else if (block.type === "image") parts.push(imagePart(block));
    else if (block.type === "tool_result") {
      const call = calls.get(block.tool_use_id);
      const { text, images } = splitToolResult(block);
      const response: Part = {
        name: call?.name ?? block.tool_use_id,
        response: block.is_error ? { error: text } : { content: text },
      };
      if (call && !geminiMeta(call.meta)?.syntheticId) response.id = call.id;
      parts.push({ functionResponse: response });
      for (const image of images) after.push(imagePart(image));
    }
  }
  // Function responses first, as Gemini pairs them with the calls of the turn before.
  const responses = parts.filter((p) => p.functionResponse !== undefined);
  const others = parts.filter((p) => p.functionResponse === undefined);
  return { role: "user", parts: [...responses, ...after, ...others] };
}

function encodeAssistant(message: AssistantMessage, calls: Map<string, ToolUseBlock>): Content {
  const parts: Part[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      // Gemini rejects an empty text part (its data unset) unless it carries a signature, as its own do.
      if (block.text !== "" || geminiMeta(block.meta)?.thoughtSignature !== undefined) {
        parts.push(withSignature({ text: block.text }, block.meta));
      }
    } else if (block.type === "thinking") {
      // Thought text need not go back; a thought that carries a signature must.
      if (geminiMeta(block.meta)?.thoughtSignature !== undefined) {
        parts.push(withSignature({ text: block.thinking, thought: true }, block.meta));
      }
    } else if (block.type === "tool_use") {
      calls.set(block.id, block);
      const call: Part = { name: block.name, args: block.raw_input === undefined ? block.input : {} };
      if (!geminiMeta(block.meta)?.syntheticId) call.id = block.id;
      parts.push(withSignature({ functionCall: call }, block.meta));
    } else if (block.type === "image") {
      parts.push(imagePart(block));
    } else if (block.type === "unknown" && block.provider === GEMINI_META) {
      parts.push(block.data);
    }
  }
  return { role: "model", parts };
}

function withSignature(part: Part, meta: BlockMeta | undefined): Part {
  const signature = geminiMeta(meta)?.thoughtSignature;
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

export function geminiMeta(meta: BlockMeta | undefined): GeminiBlockMeta | undefined {
  const value = meta?.[GEMINI_META];
  return isPlainObject(value) ? (value as GeminiBlockMeta) : undefined;
}

function imagePart(block: ImageBlock): Part {
  if (block.source.type === "base64") {
    return { inlineData: { mimeType: block.source.media_type, data: block.source.data } };
  }
  return { fileData: { mimeType: mimeFromUrl(block.source.url), fileUri: block.source.url } };
}

const MIME: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
};

function mimeFromUrl(url: string): string {
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(url)?.[1]?.toLowerCase();
  return (ext && MIME[ext]) ?? "image/jpeg";
}
