import type { PlannedBlock, PlannedTurn } from "../plan-turn.js";
import { SimScriptError } from "../script-error.js";
import type { TurnTokens } from "../scripted-turn.js";

export type GeminiPart = Record<string, unknown>;

/** A planned turn made ready for Gemini: each complete tool call's `args` object, and the thought signature. */
export interface GeminiTurn {
  plan: PlannedTurn;
  /** Parsed args by block index (complete tool calls only). */
  args: Map<number, unknown>;
  /** Set on the first functionCall part when the turn has thinking. */
  thoughtSignature: string | undefined;
}

/**
 * Checks what Gemini can carry and parses tool input once, before anything is committed: Gemini sends each
 * functionCall whole with an `args` object, so a complete call's input must be a JSON object (a script error
 * otherwise). A call cut by the output limit is never sent (the finish reason says MAX_TOKENS). The turn's
 * thought signature is its first thinking block's signature, or a stand-in when it has none.
 */
export function geminiTurn(plan: PlannedTurn): GeminiTurn {
  const args = new Map<number, unknown>();
  for (const [index, block] of plan.blocks.entries()) {
    if (block.type !== "tool_use" || !block.complete) continue;
    args.set(index, parseArgs(block));
  }
  const thinking = plan.blocks.find((b) => b.type === "thinking" || b.type === "redacted_thinking");
  let thoughtSignature: string | undefined;
  if (thinking?.type === "thinking") thoughtSignature = thinking.signature ?? "c2ltLXRob3VnaHQtc2lnbmF0dXJl";
  else if (thinking?.type === "redacted_thinking") thoughtSignature = thinking.data;
  return { plan, args, thoughtSignature };
}

function parseArgs(block: Extract<PlannedBlock, { type: "tool_use" }>): unknown {
  if (block.content === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(block.content);
  } catch {
    value = undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SimScriptError(
      `tool_use "${block.name}": Gemini sends a functionCall's args whole as a JSON object; the scripted input ` +
        "is not one (invalid JSON is only possible on the streaming Anthropic and OpenAI protocols)",
    );
  }
  return value;
}

/** The functionCall part of block `index`, with the thought signature when it is the turn's first call. */
export function functionCallPart(turn: GeminiTurn, index: number): GeminiPart | undefined {
  const block = turn.plan.blocks[index];
  if (block?.type !== "tool_use" || !turn.args.has(index)) return undefined;
  const part: GeminiPart = { functionCall: { name: block.name, args: turn.args.get(index) } };
  const first = turn.plan.blocks.findIndex((b) => b.type === "tool_use");
  if (index === first && turn.thoughtSignature !== undefined) part.thoughtSignature = turn.thoughtSignature;
  return part;
}

/** The whole turn as parts, one per block: text, thought text (`thought: true`), functionCall. */
export function geminiParts(turn: GeminiTurn): GeminiPart[] {
  const parts: GeminiPart[] = [];
  for (const [index, block] of turn.plan.blocks.entries()) {
    if (block.type === "text") parts.push({ text: block.content });
    else if (block.type === "thinking") parts.push({ text: block.content, thought: true });
    else if (block.type === "tool_use") {
      const part = functionCallPart(turn, index);
      if (part) parts.push(part);
    }
  }
  return parts;
}

/** Gemini's finishReason: MAX_TOKENS for a cut, SAFETY for a refusal, else STOP. */
export function geminiFinishReason(plan: PlannedTurn): "STOP" | "MAX_TOKENS" | "SAFETY" {
  if (plan.stopReason === "max_tokens") return "MAX_TOKENS";
  if (plan.stopReason === "refusal") return "SAFETY";
  return "STOP";
}

/** `usageMetadata`: candidates exclude thoughts, the total includes them; the cached count only when there is one. */
export function usageMetadata(tokens: TurnTokens): Record<string, unknown> {
  const candidates = tokens.outputTokens - tokens.reasoningTokens;
  const usage: Record<string, unknown> = {
    promptTokenCount: tokens.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: tokens.promptTokens + tokens.outputTokens,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: tokens.promptTokens }],
  };
  if (tokens.cachedTokens > 0) usage.cachedContentTokenCount = tokens.cachedTokens;
  if (tokens.reasoningTokens > 0) usage.thoughtsTokenCount = tokens.reasoningTokens;
  return usage;
}

/** One GenerateContentResponse (a streamed chunk or the whole answer). */
export function geminiResponse(
  parts: GeminiPart[],
  finishReason: string | undefined,
  /** Undefined: the server reports no usage (no `usageMetadata`). */
  tokens: TurnTokens | undefined,
  identity: { model: string; responseId: string },
  grounding?: Record<string, unknown>,
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" } };
  if (finishReason !== undefined) candidate.finishReason = finishReason;
  if (grounding !== undefined) candidate.groundingMetadata = grounding;
  candidate.index = 0;
  return {
    candidates: [candidate],
    ...(tokens ? { usageMetadata: usageMetadata(tokens) } : {}),
    modelVersion: identity.model,
    responseId: identity.responseId,
  };
}

/**
 * Grounding with Google Search: the queries run, the pages found (`groundingChunks`) and which text each cited
 * page supports (`groundingSupports`, by character offsets into the answer's text). Undefined without a search.
 */
export function groundingMetadata(plan: PlannedTurn): Record<string, unknown> | undefined {
  const searches = plan.blocks.filter((block) => block.type === "web_search");
  if (searches.length === 0) return undefined;
  const chunks: Array<{ web: { uri: string; title: string } }> = [];
  const indexOf = (uri: string, title: string) => {
    let at = chunks.findIndex((chunk) => chunk.web.uri === uri);
    if (at === -1) at = chunks.push({ web: { uri, title } }) - 1;
    return at;
  };
  for (const search of searches) for (const result of search.results) indexOf(result.url, result.title);
  const supports: unknown[] = [];
  let offset = 0;
  for (const block of plan.blocks) {
    if (block.type !== "text") continue;
    const cited = (block.citations ?? []).map((citation) => indexOf(citation.url, citation.title ?? ""));
    if (cited.length > 0) {
      supports.push({
        segment: { startIndex: offset, endIndex: offset + block.content.length, text: block.content },
        groundingChunkIndices: cited,
      });
    }
    offset += block.content.length;
  }
  return {
    webSearchQueries: searches.map((search) => search.query),
    groundingChunks: chunks,
    groundingSupports: supports,
  };
}
