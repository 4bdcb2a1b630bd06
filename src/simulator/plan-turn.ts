import { codePointLength, takeCodePoints } from "./chunk-text.js";
import { SimScriptError } from "./script-error.js";
import type { SimBlock, SimCitation, SimSearchResult, SimStopReason, SimTurn } from "./types.js";

/** One block as it will be generated: `content` is the generated text (possibly cut). */
export type PlannedBlock =
  | { type: "text"; content: string; complete: boolean; citations?: SimCitation[] }
  /** A server-side search; `content` is its input JSON (`{"query":…}`), which counts as generated output. */
  | {
      type: "web_search";
      id: string;
      query: string;
      results: SimSearchResult[];
      errorCode: string | undefined;
      content: string;
      complete: true;
    }
  | { type: "thinking"; content: string; signature: string | undefined; complete: boolean }
  | { type: "redacted_thinking"; data: string; content: ""; complete: true }
  | {
      type: "tool_use";
      id: string;
      name: string;
      content: string;
      /** The scripted input was given as `rawInput` (the text may not be JSON). */
      raw: boolean;
      complete: boolean;
    };

/** A turn after the output limit was applied: what the provider-specific writers render. */
export interface PlannedTurn {
  blocks: PlannedBlock[];
  stopReason: SimStopReason;
  /** Code points generated (text, thinking, tool input), for the output token estimate. */
  outputChars: number;
  /** True when the output limit cut the turn short. */
  cut: boolean;
}

/**
 * Applies the output limit (`limitChars`: the smaller of the request's max_tokens in characters and a
 * `max-tokens` fault) to a scripted turn. A block that would pass the limit is cut there and is the last one;
 * a block that would start exactly at the limit is not started. Either way stop_reason becomes max_tokens.
 */
export function planTurn(turn: SimTurn, limitChars: number, newToolId: () => string): PlannedTurn {
  const blocks: PlannedBlock[] = [];
  let remaining = Math.max(0, limitChars);
  let cut = false;
  let outputChars = 0;
  let hasToolUse = false;
  for (const [index, block] of turn.content.entries()) {
    const content = blockContent(block, index);
    const length = codePointLength(content);
    if (length > 0 && remaining === 0) {
      cut = true;
      break;
    }
    const complete = length <= remaining;
    // A search is not generated piece by piece: one that does not fit is not started.
    if (!complete && block.type === "web_search") {
      cut = true;
      break;
    }
    const generated = complete ? content : takeCodePoints(content, remaining);
    remaining -= complete ? length : remaining;
    outputChars += complete ? length : codePointLength(generated);
    blocks.push(plannedBlock(block, generated, complete, newToolId));
    if (block.type === "tool_use") hasToolUse = true;
    if (!complete) {
      cut = true;
      break;
    }
  }
  const stopReason = cut ? "max_tokens" : (turn.stopReason ?? (hasToolUse ? "tool_use" : "end_turn"));
  return { blocks, stopReason, outputChars, cut };
}

function blockContent(block: SimBlock, index: number): string {
  switch (block.type) {
    case "text":
      if (block.citations !== undefined && !Array.isArray(block.citations)) {
        throw new SimScriptError(`scripted block ${index}: citations must be an array`);
      }
      return requireString(block.text, index, "text");
    case "thinking":
      return requireString(block.thinking, index, "thinking");
    case "web_search":
      return JSON.stringify({ query: requireString(block.query, index, "query") });
    case "redacted_thinking":
      requireString(block.data, index, "data");
      return "";
    case "tool_use": {
      if (typeof block.name !== "string" || block.name === "") {
        throw new SimScriptError(`scripted block ${index}: tool_use needs a name`);
      }
      if ("rawInput" in block) return requireString(block.rawInput, index, "rawInput");
      const json = JSON.stringify(block.input);
      if (typeof json !== "string") {
        throw new SimScriptError(
          `scripted block ${index}: tool_use "${block.name}" input is not JSON-serialisable`,
        );
      }
      return json;
    }
    default:
      throw new SimScriptError(
        `scripted block ${index}: unknown block type ${JSON.stringify((block as { type?: unknown }).type)}`,
      );
  }
}

function requireString(value: unknown, index: number, field: string): string {
  if (typeof value !== "string")
    throw new SimScriptError(`scripted block ${index}: ${field} must be a string`);
  return value;
}

function plannedBlock(
  block: SimBlock,
  content: string,
  complete: boolean,
  newToolId: () => string,
): PlannedBlock {
  switch (block.type) {
    case "text":
      return block.citations?.length
        ? { type: "text", content, complete, citations: block.citations }
        : { type: "text", content, complete };
    case "thinking":
      return { type: "thinking", content, signature: block.signature, complete };
    case "web_search":
      return {
        type: "web_search",
        id: block.id ?? newToolId(),
        query: block.query,
        results: block.results ?? [],
        errorCode: block.errorCode,
        content,
        complete: true,
      };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data, content: "", complete: true };
    case "tool_use":
      return {
        type: "tool_use",
        id: block.id ?? newToolId(),
        name: block.name,
        content,
        raw: "rawInput" in block,
        complete,
      };
  }
}
