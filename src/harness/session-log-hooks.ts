import type { RunAgentOptions } from "../loop/run-agent.js";
import type { SessionLog } from "../session/index.js";

type LogHooks = Pick<RunAgentOptions, "onMessage" | "onToolStart" | "onToolResult" | "onHistoryReplaced">;

/** The loop's session-log hooks, writing to `log`: every message as sent, each call's start and result, a replaced history. */
export function sessionLogHooks(log: SessionLog): LogHooks {
  return {
    onMessage: (message) => log.append(message),
    onToolStart: (block) => log.appendEntry({ type: "tool-start", toolUseId: block.id, name: block.name }),
    onToolResult: (_block, result) => log.appendEntry({ type: "tool-result", result }),
    onHistoryReplaced: (info) => log.appendEntry({ type: "compaction", ...info }),
  };
}
