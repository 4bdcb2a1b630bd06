/** What a provider's "the prompt is too long" answer says: the prompt's size in tokens, when it says it. */
export interface PromptTooLong {
  tokens?: number;
}

/** The messages each API (and the common compatible servers) answer a prompt larger than the window with. */
const PATTERNS: RegExp[] = [
  // Anthropic: 400 invalid_request_error "prompt is too long: 204851 tokens > 200000 maximum".
  /prompt is too long/i,
  // Anthropic, when the prompt fits but not with max_tokens: "input length and `max_tokens` exceed context limit".
  /exceed context limit/i,
  // OpenAI (Chat, Responses): code context_length_exceeded, "This model's maximum context length is …",
  // "Your input exceeds the context window of this model"; vLLM says the first too.
  /context_length_exceeded/i,
  /maximum context length is/i,
  /exceeds the context window/i,
  // Gemini: 400 INVALID_ARGUMENT "The input token count (1234567) exceeds the maximum number of tokens allowed".
  /input token count.{0,40}exceeds the maximum/i,
  // llama.cpp: "the request exceeds the available context size".
  /exceeds the available context size/i,
];

/** Where the prompt's own size is in those messages. */
const TOKENS: RegExp[] = [
  /prompt is too long:\s*(\d+)\s*tokens/i,
  /exceed context limit:\s*(\d+)/i,
  /resulted in\s*(\d+)\s*tokens/i,
  /you requested\s*(\d+)\s*tokens/i,
  /input token count\s*\(?(\d+)\)?/i,
];

/**
 * Whether a failed call's error (an `AssistantMessage.error`) is the provider refusing a prompt larger than the
 * model's context window, and how large the provider said it was. Undefined for every other error: a rate
 * limit, an overload or a 5xx is not this (its status says so).
 */
export function promptTooLong(error: {
  type: string;
  message: string;
  status?: number;
}): PromptTooLong | undefined {
  if (error.status !== undefined && error.status !== 400 && error.status !== 413) return undefined;
  const text = `${error.type} ${error.message}`;
  if (!PATTERNS.some((pattern) => pattern.test(text))) return undefined;
  for (const pattern of TOKENS) {
    const match = pattern.exec(text);
    if (match?.[1]) return { tokens: Number(match[1]) };
  }
  return {};
}
