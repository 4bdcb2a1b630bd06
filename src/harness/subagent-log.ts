import { basename, dirname, join, relative } from "node:path";
import type { SubagentTranscript, SubagentTranscriptInfo } from "../agents/index.js";
import { SessionLog } from "../session/index.js";
import { sessionLogHooks } from "./session-log-hooks.js";

/**
 * Opens a sub-agent's own transcript beside the conversation's log: a session file in the folder named after
 * the parent's file (`<parent>/…jsonl`), with the child's system prompt in its header, and a `subagent` line
 * in the parent's log that links the Task call's `tool_use_id` to it. Returns the child's session-log hooks:
 * its messages as sent, and each of its calls' start and result, as for the parent.
 */
export function openSubagentLog(parent: SessionLog, info: SubagentTranscriptInfo): SubagentTranscript {
  const folder = join(dirname(parent.path), basename(parent.path, ".jsonl"));
  const child = SessionLog.create(folder, {
    cwd: parent.header.cwd,
    model: info.model,
    system: info.system,
  });
  parent.appendEntry({
    type: "subagent",
    toolUseId: info.toolUseId,
    path: relative(dirname(parent.path), child.path),
  });
  // Its messages and its calls' starts and results, as for the parent (no compaction: a child is not compacted).
  const { onHistoryReplaced: _unused, ...hooks } = sessionLogHooks(child);
  return hooks;
}
