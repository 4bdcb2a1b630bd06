import { randomUUID } from "node:crypto";
import type { CodingAgent } from "../../harness/index.js";
import type { AgentEvent, AgentResult } from "../../loop/agent-event.js";
import { mcpServerStatuses } from "./control-answers.js";
import { modelFacts } from "./model-usage.js";
import { createSdkOutput, initMessage } from "./sdk-messages.js";

/**
 * `mitsu -p --output-format json` and `stream-json` without the SDK's control protocol: the same messages the
 * SDK front-end sends (Claude Code's `SDKSystemMessage` init, `SDKAssistantMessage` per content block,
 * `SDKUserMessage` with tool results, `SDKResultMessage` with `uuid`, `modelUsage`, `permission_denials`,
 * `terminal_reason`), from the same code (`createSdkOutput`, `initMessage`). `lines` puts the `system`/`init`
 * message before the first event's lines (the session id exists by then).
 */
export function createPrintOutput(
  agent: CodingAgent,
  options: { cwd: string; includePartialMessages?: boolean; cacheTtl?: "5m" | "1h" | undefined },
) {
  // Without a session log the agent has no id: the stream still names one session.
  const fallbackId = randomUUID();
  const sessionId = () => agent.sessionId ?? fallbackId;
  const sdk = createSdkOutput({
    sessionId,
    model: () => agent.model,
    facts: (model) => modelFacts(agent, model),
    includePartialMessages: options.includePartialMessages === true,
    ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
  });
  let initSent = false;
  let deniedBefore = 0;
  return {
    /** Call before each prompt. */
    start() {
      sdk.start();
      deniedBefore = agent.permissionDenials.length;
    },
    /** The stream-json lines for one event (none for most: whole messages, as Claude Code prints them). */
    lines(event: AgentEvent): unknown[] {
      const lines = sdk.lines(event);
      if (initSent) return lines;
      initSent = true;
      const init = initMessage(agent, {
        cwd: options.cwd,
        sessionId: sessionId(),
        model: agent.model,
        permissionMode: agent.permissionMode.mode,
        mcpServers: mcpServerStatuses(agent, []),
      });
      return [init, ...lines];
    },
    /**
     * The prompt's `result` message. A turn a denial stopped (a PermissionRequest hook's `interrupt`) is an
     * unfinished answer, as the exit code (1) says: an error here, not the SDK session's success.
     */
    result(result: AgentResult) {
      const message = sdk.result(result, { denials: agent.permissionDenials.slice(deniedBefore) });
      if (result.reason !== "denied") return message;
      const { result: _text, ...rest } = message as typeof message & { result?: string };
      return {
        ...rest,
        subtype: "error_during_execution",
        is_error: true,
        errors: ["A tool call was denied and the run stopped there (interrupt)."],
      };
    },
  };
}
