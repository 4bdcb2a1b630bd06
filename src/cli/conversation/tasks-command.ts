import { type AgentRecord, type BackgroundAgents, lastText } from "../../agents/index.js";
import { emptyUsage } from "../../messages/index.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";

/**
 * `/tasks`: the conversation's sub-agents (background ones first), and what the user can do with one:
 * `/tasks show <id>` its transcript, `/tasks stop <id>`, `/tasks send <id> <message>` (a running one reads it
 * before its next model call; a finished one continues in the background with it).
 */
export async function tasksCommand(
  agents: BackgroundAgents | undefined,
  args: string,
  style: Style,
): Promise<string> {
  if (!agents) return "No sub-agents here.";
  const [verb = "", id = "", ...rest] = args.trim().split(/\s+/);
  const record = id ? agents.get(id) : undefined;
  if (verb === "") return listAgents(agents.list(), style);
  if (!record) return style.red(`No agent with id "${stripControls(id)}". /tasks lists them.`);
  switch (verb) {
    case "show":
      return transcript(record);
    case "stop":
      return (await agents.stop(record.id))
        ? `Stopped ${record.id}.`
        : `${record.id} is not running (${record.status}).`;
    case "send": {
      const message = args
        .trim()
        .slice(args.trim().indexOf(id) + id.length)
        .trim();
      if (message === "" || rest.length === 0) return style.red("Usage: /tasks send <id> <message>");
      try {
        return agents.send(record.id, message);
      } catch (error) {
        return style.red((error as Error).message);
      }
    }
    default:
      return style.red("Usage: /tasks [show|stop|send <id> [message]]");
  }
}

function listAgents(records: readonly AgentRecord[], style: Style): string {
  if (records.length === 0) return "No sub-agents in this conversation.";
  const lines = [...records]
    .sort((a, b) => Number(b.status === "running") - Number(a.status === "running"))
    .map((r) => {
      const seconds = (((r.endedAt ?? performance.now()) - r.startedAt) / 1000).toFixed(1);
      const mark = r.status === "running" ? style.yellow("running") : style.dim(r.status);
      const where = r.background ? "background" : "foreground";
      return `${r.id}  ${mark}  ${stripControls(r.agent)}: ${stripControls(r.description)} (${where}, ${seconds} s, depth ${r.agentPath.length})`;
    });
  return `${lines.join("\n")}\n${style.dim("/tasks show <id> · /tasks stop <id> · /tasks send <id> <message>")}`;
}

function transcript(record: AgentRecord): string {
  const out: string[] = [`${record.id} — ${record.agent}: ${record.description} (${record.status})`];
  for (const message of record.messages) {
    for (const block of message.content) {
      if (block.type === "text" && !block.text.startsWith("<system-reminder>")) {
        out.push(`${message.role === "user" ? ">" : "●"} ${stripControls(block.text)}`);
      } else if (block.type === "tool_use") {
        out.push(`  ↳ ${block.name} ${stripControls(JSON.stringify(block.input)).slice(0, 120)}`);
      }
    }
  }
  if (record.messages.length === 0) {
    const text = lastText({ reason: "end_turn", messages: record.messages, usage: emptyUsage() });
    if (text) out.push(text);
  }
  return out.join("\n");
}
