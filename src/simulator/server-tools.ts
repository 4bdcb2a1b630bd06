import { SimScriptError } from "./script-error.js";
import type { SimTurn } from "./types.js";

/** Whether a request's `tools` offer the provider's web search, by the protocol's own spelling of it. */
export function offersWebSearch(
  protocol: "anthropic" | "openai-responses" | "gemini",
  tools: unknown,
): boolean {
  if (!Array.isArray(tools)) return false;
  return tools.some((tool) => {
    if (!tool || typeof tool !== "object") return false;
    const t = tool as Record<string, unknown>;
    if (protocol === "anthropic") return typeof t.type === "string" && t.type.startsWith("web_search_");
    if (protocol === "openai-responses") return t.type === "web_search" || t.type === "web_search_preview";
    return t.googleSearch !== undefined || t.google_search !== undefined;
  });
}

/**
 * A scripted web search needs a request that offered the search tool (the model cannot call a tool it was not
 * given), and a protocol that has one: otherwise the script is wrong, and the simulator says so (a 500).
 */
export function checkWebSearch(turn: SimTurn, offered: boolean, protocol: string): void {
  const index = turn.content.findIndex((block) => block.type === "web_search");
  if (index === -1 || offered) return;
  throw new SimScriptError(
    `scripted block ${index}: a web_search, but the ${protocol} request offered no web search tool`,
  );
}
