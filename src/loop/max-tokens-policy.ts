import type { AssistantMessage, ToolUseBlock } from "../messages/index.js";

/**
 * What the loop does when a response is cut at `max_tokens` inside a tool call (the input is incomplete, so
 * the tool cannot run). Either the turn is retried once with `max_tokens` doubled (capped), the cut message
 * dropped; or, where that is not possible, the cut message is kept and each of its calls is answered with an
 * `is_error` result that tells the model to write smaller pieces, and the loop goes on.
 */
export interface MaxTokensPolicy {
  /** Retry the cut turn once with `max_tokens` doubled. Default true. */
  retry?: boolean;
  /** The most a retry asks for. Default 64000. */
  maxTokensCap?: number;
}

export const DEFAULT_MAX_TOKENS_CAP = 64_000;

/** The tool call a `max_tokens` stop cut short, if the message was cut inside one. */
export function cutToolCall(message: AssistantMessage): ToolUseBlock | undefined {
  if (message.stop_reason !== "max_tokens") return undefined;
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i];
    if (block?.type === "tool_use" && block.input_status === "incomplete") return block;
  }
  return undefined;
}

/** The result for the call that was cut: it did not run, and the model should try again in smaller pieces. */
export function cutCallMessage(block: ToolUseBlock, maxTokens: number): string {
  return (
    `Your output was cut at max_tokens (${maxTokens}) before the input of this ${block.name} call was complete, ` +
    "so the tool was not run. Write smaller pieces: split large content over several calls " +
    "(for example, write the first part of a file, then add the rest with further edits)."
  );
}

/** The result for a complete call in a cut message: no call of a half-finished turn runs. */
export function notRunInCutMessage(maxTokens: number): string {
  return (
    `Not run: your output was cut at max_tokens (${maxTokens}) before all the tool calls of this turn were ` +
    "complete, so none of them was run. Make the call again."
  );
}
