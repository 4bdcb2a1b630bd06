import { basename, dirname } from "node:path";
import type { SubagentTranscript, SubagentTranscriptInfo } from "../agents/index.js";
import { SessionLog } from "../session/index.js";
import { sessionLogHooks } from "./session-log-hooks.js";

/**
 * Opens a sub-agent's own transcript beside the conversation's log: a session file in the same folder, whose
 * header holds the child's system prompt and names its parent (so `mitsu -c` passes over it), and a `subagent`
 * line in the parent's log that links the Task call's `tool_use_id` to it. Returns the child's session-log hooks:
 * its messages as sent, and each of its calls' start and result, as for the parent.
 */
export function openSubagentLog(parent: SessionLog, info: SubagentTranscriptInfo): SubagentTranscript {
  const child = SessionLog.create(dirname(parent.path), {
    cwd: parent.header.cwd,
    model: info.model,
    system: info.system,
    parent: {
      session: parent.header.id,
      toolUseId: info.toolUseId,
      ...(info.agent !== undefined ? { agent: info.agent } : {}),
    },
  });
  parent.appendEntry({ type: "subagent", toolUseId: info.toolUseId, path: basename(child.path) });
  // Its messages, its calls' starts and results, and its compactions, as for the parent.
  return { ...sessionLogHooks(child), close: () => child.close() };
}
