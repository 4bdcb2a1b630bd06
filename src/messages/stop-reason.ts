/**
 * Why an assistant message ended. The first six are Anthropic's; other providers map onto them.
 * `error` and `aborted` are mitsu's own: the stream failed, or the caller aborted it.
 */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "error"
  | "aborted";
