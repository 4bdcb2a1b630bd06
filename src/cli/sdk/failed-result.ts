import { randomUUID } from "node:crypto";

/**
 * The `result` of a prompt that never reached the model (mitsu could not start, an unknown command, a usage
 * error): the Agent SDK's `SDKResultMessage` with its `errors`. Light on imports: the command line prints it for a
 * usage error before anything else is loaded.
 */
export function failedResult(message: string, sessionId: string = randomUUID()) {
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    duration_ms: 0,
    duration_api_ms: 0,
    num_turns: 0,
    errors: [message],
    stop_reason: null,
    total_cost_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    modelUsage: {},
    permission_denials: [],
    terminal_reason: "turn_setup_failed",
    uuid: randomUUID(),
    session_id: sessionId,
  };
}
