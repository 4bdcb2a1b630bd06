import type { TurnTokens } from "../scripted-turn.js";

/** What a response object says about its request and itself. */
export interface ResponseIdentity {
  id: string;
  model: string;
  /** Unix seconds. */
  createdAt: number;
  /** The request's fields that the response echoes. */
  request: Record<string, unknown>;
}

export type ResponseStatus = "in_progress" | "completed" | "incomplete" | "failed";

/**
 * A `response` object in the given state: `output` and `usage` as far as they are known, `incomplete_details`
 * with reason max_output_tokens for an incomplete one, `error` for a failed one.
 */
export function responseObject(
  identity: ResponseIdentity,
  status: ResponseStatus,
  output: unknown[],
  tokens: TurnTokens | undefined,
  error: { code: string | null; message: string } | null = null,
): Record<string, unknown> {
  const { request } = identity;
  return {
    id: identity.id,
    object: "response",
    created_at: identity.createdAt,
    status,
    background: false,
    error,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: identity.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: request.reasoning ?? { effort: null, summary: null },
    service_tier: "default",
    store: request.store ?? true,
    temperature: request.temperature ?? 1,
    text: { format: { type: "text" } },
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    top_p: 1,
    truncation: "disabled",
    usage: tokens ? responsesUsage(tokens) : null,
    user: null,
    metadata: {},
  };
}

/** The Responses API's `usage` (input_tokens includes the cached ones). */
export function responsesUsage(tokens: TurnTokens): Record<string, unknown> {
  return {
    input_tokens: tokens.promptTokens,
    input_tokens_details: { cached_tokens: tokens.cachedTokens },
    output_tokens: tokens.outputTokens,
    output_tokens_details: { reasoning_tokens: tokens.reasoningTokens },
    total_tokens: tokens.promptTokens + tokens.outputTokens,
  };
}
