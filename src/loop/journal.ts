import type { AssistantMessage, ToolResultBlock, ToolUseBlock } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { AgentPath } from "./agent-event.js";

/** The model call a journal wraps. */
export interface ModelCallInfo {
  /** 1 for the first call of the run; a max_tokens retry is a new turn. */
  turn: number;
  /** The request exactly as it is sent (after `prepareRequest`). */
  request: ModelRequest;
  agentPath: AgentPath;
}

/** The tool call a journal wraps. */
export interface ToolCallInfo {
  turn: number;
  block: ToolUseBlock;
  agentPath: AgentPath;
}

/**
 * The seam around each side effect of a run, for a durable runner (each call a journaled step, as Restate's
 * `ctx.run`) or a replayer (a recorded run again, without the network or the tools).
 *
 * Contract: a journal returns, for each call, either what `call` resolved with or a value recorded from an
 * earlier run of the same call — in the same order, calls are deterministic given the transcript. It calls
 * `call` at most once. `call` never rejects: model failures and tool failures are values (a message with
 * `stop_reason: "error"`, an `is_error` result), so a journal records them like any other. If a journal
 * itself throws, the run ends with reason `error` (type `journal_error`); a tool journal that throws makes
 * that call's result an `is_error` result instead.
 */
export interface Journal {
  /**
   * One model call. `call` streams the response — its events reach the run's event stream as they arrive —
   * and resolves with the final message. A replay resolves with the recorded message and no stream events.
   */
  model(info: ModelCallInfo, call: () => Promise<AssistantMessage>): Promise<AssistantMessage>;
  /**
   * One tool call, from input validation to its result: the permission question is inside `call`, so a
   * replay asks nothing again. Runs concurrently with the other calls of its batch.
   */
  tool(info: ToolCallInfo, call: () => Promise<ToolResultBlock>): Promise<ToolResultBlock>;
}

/** The journal of an ordinary run: every call goes through. */
export const passThroughJournal: Journal = {
  model: (_info, call) => call(),
  tool: (_info, call) => call(),
};
