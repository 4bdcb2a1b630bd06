import { basename, dirname, join, relative } from "node:path";
import type { SubagentTranscriptInfo } from "../agents/index.js";
import type { Message } from "../messages/index.js";
import { SessionLog } from "../session/index.js";

/**
 * Opens a sub-agent's own transcript beside the conversation's log: a session file in the folder named after
 * the parent's file (`<parent>/…jsonl`), with the child's system prompt in its header, and a `subagent` line
 * in the parent's log that links the Task call's `tool_use_id` to it. Returns what appends each of the
 * child's messages as sent.
 */
export function openSubagentLog(
  parent: SessionLog,
  info: SubagentTranscriptInfo,
): (message: Message) => void {
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
  return (message) => child.append(message);
}
