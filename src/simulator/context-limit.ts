import type { SimContext } from "./sim-context.js";
import { estimateTokens } from "./token-estimate.js";

/** A request the model's context window cannot take: its prompt, the answer room it asked for, and the window. */
export interface Overflow {
  promptTokens: number;
  maxTokens: number;
  window: number;
}

/**
 * Whether a request passes the model's context window (`SimulatorOptions.contextWindow`), counted as the
 * simulator counts prompts (characters of the canonical prompt / charsPerToken). `countAnswer`: the answer room
 * (max tokens) counts too, as Anthropic and OpenAI count it; Gemini counts the prompt alone.
 */
export function overflowOf(
  ctx: SimContext,
  model: string,
  promptChars: number,
  maxTokens: number | undefined,
  countAnswer: boolean,
): Overflow | undefined {
  const option = ctx.options.contextWindow;
  const window = typeof option === "number" ? option : option?.[model];
  if (window === undefined) return undefined;
  const promptTokens = estimateTokens(promptChars, ctx.options.charsPerToken);
  const answer = countAnswer ? (maxTokens ?? 0) : 0;
  if (promptTokens + answer <= window) return undefined;
  return { promptTokens, maxTokens: answer, window };
}
