import type { Message } from "../messages/index.js";

/** Characters per token of the estimate; real counts need the provider's tokenizer. */
export const CHARS_PER_TOKEN = 4;

/** An estimate of what a value weighs on the wire: the characters of its JSON / 4, rounded up. */
export function estimateJsonTokens(value: unknown): number {
  const json = JSON.stringify(value);
  return json === undefined ? 0 : Math.ceil(json.length / CHARS_PER_TOKEN);
}

/**
 * How many tokens `messages` (with the request's `system` and `tools`) will be when sent: the input of the
 * newest request the transcript records (the last assistant message's usage: fresh + cache reads + cache
 * writes, plus its output, which is now part of the input), and an estimate for the messages after it.
 * Without any recorded usage (a new or a foreign transcript), `fixedTokens` (system and tools) plus an
 * estimate of every message. Cheap: it looks only at the messages after the last answer.
 */
export function contextTokens(messages: readonly Message[], fixedTokens = 0): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role !== "assistant" || !message.usage) continue;
    const u = message.usage;
    const sent = u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0);
    if (sent === 0) continue;
    return sent + u.output_tokens + messages.slice(i + 1).reduce((n, m) => n + estimateJsonTokens(m), 0);
  }
  return fixedTokens + messages.reduce((n, m) => n + estimateJsonTokens(m), 0);
}
