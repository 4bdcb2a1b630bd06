import type { TurnTokens } from "./scripted-turn.js";
import type { SimContext } from "./sim-context.js";
import type { SimUsage } from "./types.js";

/**
 * The usage the server reports for a served turn (see `SimulatorOptions.reportUsage`), in Anthropic's names:
 * the honest counts, zeros ("none": Anthropic's wire always carries a usage object), or what the option's
 * function makes of the honest counts. The request log keeps the honest counts.
 */
export function reportedUsage(ctx: SimContext, usage: SimUsage): SimUsage {
  const report = ctx.options.reportUsage;
  if (report === "honest") return usage;
  if (report === "none")
    return {
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    };
  return report(usage);
}

/**
 * The token counts an OpenAI or Gemini answer reports: the honest ones, none at all ("none": no usage object
 * on the wire), or the option's function applied through Anthropic's names (input + cache reads = the prompt).
 */
export function reportedTokens(ctx: SimContext, tokens: TurnTokens): TurnTokens | undefined {
  const report = ctx.options.reportUsage;
  if (report === "honest") return tokens;
  if (report === "none") return undefined;
  const usage = report({
    input_tokens: tokens.promptTokens - tokens.cachedTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: tokens.cachedTokens,
    output_tokens: tokens.outputTokens,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  });
  return {
    promptTokens: usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens,
    cachedTokens: usage.cache_read_input_tokens,
    outputTokens: usage.output_tokens,
    reasoningTokens: Math.min(tokens.reasoningTokens, usage.output_tokens),
  };
}
