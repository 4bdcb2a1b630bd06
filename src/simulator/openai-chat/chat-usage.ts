import type { TurnTokens } from "../scripted-turn.js";

/** Chat Completions' `usage` object (prompt_tokens includes the cached ones). */
export function chatUsage(tokens: TurnTokens): Record<string, unknown> {
  return {
    prompt_tokens: tokens.promptTokens,
    completion_tokens: tokens.outputTokens,
    total_tokens: tokens.promptTokens + tokens.outputTokens,
    prompt_tokens_details: { cached_tokens: tokens.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: tokens.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
