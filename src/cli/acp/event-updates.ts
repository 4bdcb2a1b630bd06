import type {
  PlanEntryStatus,
  SessionUpdate,
  ToolCallContent,
  ToolCallStatus,
} from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../../loop/agent-event.js";
import type { Tool } from "../../loop/tool.js";
import type { AssistantMessage, ToolResultBlock, ToolUseBlock } from "../../messages/index.js";
import { type ToolCallView, toolCallView, toolKind } from "./tool-call-view.js";

/** Characters of a tool's output an update carries (its end); the model's result is not cut by this. */
const SHOWN_OUTPUT_CHARS = 16_000;

export interface EventUpdatesOptions {
  cwd: string;
  /** The agent's tool of a name (for its permission facts), and its one-line summary of a call. */
  tool: (name: string) => Tool<never> | undefined;
  summarize: (block: ToolUseBlock) => string;
  /** Whether a path may be read from disk to show a diff (inside the workspace). */
  inside: (path: string) => boolean;
}

/**
 * Turns the harness's events into ACP `session/update`s, as they arrive: text and thinking deltas become
 * `agent_message_chunk` / `agent_thought_chunk`; a tool call becomes a `tool_call` (when its input starts to
 * stream, then completed when the input is whole) and `tool_call_update`s (its output as it runs, its status
 * and result at the end); a TodoWrite list becomes a `plan`. A sub-agent's calls are tool calls of their own,
 * with ids under their Task call's and `_meta.mitsu.parentToolCallId` naming it; its text stays inside it.
 */
export class EventUpdates {
  /** Calls announced (their `tool_call` sent), by ACP id. */
  private readonly calls = new Map<
    string,
    { output: string; terminal: boolean; diff: boolean; content: ToolCallContent[] }
  >();

  /** ACP ids by tool_use id (a sub-agent's call's id is under its path). */
  private readonly ids = new Map<string, string>();

  constructor(private readonly options: EventUpdatesOptions) {}

  /** ACP's id of the call a tool_use id names (announced already), else the id itself. */
  callIdOf(toolUseId: string): string {
    return this.ids.get(toolUseId) ?? toolUseId;
  }

  /** ACP's id of a call: the tool_use id, under its sub-agent's path. */
  static callId(agentPath: readonly string[], toolUseId: string): string {
    return [...agentPath, toolUseId].join("/");
  }

  /** The view of a call the harness asks permission for (the same the `tool_call` showed). */
  view(block: ToolUseBlock): ToolCallView {
    return toolCallView(block, this.options.tool(block.name), {
      cwd: this.options.cwd,
      summary: this.options.summarize(block),
      inside: this.options.inside,
    });
  }

  /** Marks a call as showing an editor terminal: its output is the terminal, not text updates. */
  terminalShown(callId: string): void {
    const call = this.calls.get(callId);
    if (call) call.terminal = true;
  }

  updates(event: AgentEvent): SessionUpdate[] {
    const top = event.agentPath.length === 0;
    switch (event.type) {
      case "text-delta":
        return top && event.delta !== ""
          ? [{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.delta } }]
          : [];
      case "thinking-delta":
        return top && event.delta !== ""
          ? [{ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.delta } }]
          : [];
      case "tool-input-start": {
        if (!top) return [];
        const id = EventUpdates.callId(event.agentPath, event.toolUseId);
        if (this.calls.has(id)) return [];
        this.calls.set(id, { output: "", terminal: false, diff: false, content: [] });
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: id,
            title: event.name,
            kind: toolKind(event.name, {}),
            status: "pending",
            rawInput: {},
          },
        ];
      }
      case "tool-call-start":
        return this.started(event.block, event.agentPath);
      case "tool-progress": {
        const id = EventUpdates.callId(event.agentPath, event.toolUseId);
        const call = this.calls.get(id);
        if (!call || call.terminal)
          return [{ sessionUpdate: "tool_call_update", toolCallId: id, status: "in_progress" }];
        call.output = (call.output + event.text).slice(-SHOWN_OUTPUT_CHARS);
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: id,
            status: "in_progress",
            content: [textContent(fenced(call.output))],
          },
        ];
      }
      case "tool-call-end":
        return this.ended(event.block, event.result, event.agentPath);
      case "message":
        return event.message.role === "assistant" && !top
          ? this.subagentSaid(event.message, event.agentPath)
          : [];
      default:
        return [];
    }
  }

  private started(block: ToolUseBlock, agentPath: readonly string[]): SessionUpdate[] {
    const id = EventUpdates.callId(agentPath, block.id);
    this.ids.set(block.id, id);
    const view = this.view(block);
    const known = this.calls.has(id);
    const diff = view.content.some((c) => c.type === "diff");
    this.calls.set(id, { output: "", terminal: false, diff, content: view.content });
    const parent = agentPath.length > 0 ? agentPath.join("/") : undefined;
    const fields = {
      toolCallId: id,
      title: view.title,
      kind: view.kind,
      status: "pending" as const,
      locations: view.locations,
      content: view.content,
      rawInput: block.input,
      ...(parent ? { _meta: { mitsu: { parentToolCallId: parent } } } : {}),
    };
    const updates: SessionUpdate[] = [
      known ? { sessionUpdate: "tool_call_update", ...fields } : { sessionUpdate: "tool_call", ...fields },
    ];
    if (block.name === "TodoWrite" && agentPath.length === 0) {
      const plan = planOf(block.input);
      if (plan) updates.push(plan);
    }
    return updates;
  }

  /** A sub-agent's answer of one turn, shown under its Task call (each turn's whole, not every delta). */
  private subagentSaid(message: AssistantMessage, agentPath: readonly string[]): SessionUpdate[] {
    const text = message.content
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("")
      .trim();
    const parentId = agentPath.join("/");
    const parent = this.calls.get(parentId);
    if (text === "" || !parent) return [];
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: parentId,
        status: "in_progress",
        content: [...parent.content, textContent(text.slice(-SHOWN_OUTPUT_CHARS))],
      },
    ];
  }

  private ended(block: ToolUseBlock, result: ToolResultBlock, agentPath: readonly string[]): SessionUpdate[] {
    const id = EventUpdates.callId(agentPath, block.id);
    const call = this.calls.get(id);
    this.calls.delete(id);
    this.ids.delete(block.id);
    const text = resultText(result);
    const status: ToolCallStatus = result.is_error ? "failed" : "completed";
    // A diff stays what the call shows when it worked; a terminal shows its own output.
    const keep = (call?.diff && !result.is_error) || call?.terminal;
    const content: ToolCallContent[] | undefined = keep
      ? undefined
      : text === ""
        ? []
        : [textContent(block.name === "Bash" || block.name === "BashOutput" ? fenced(text) : text)];
    return [
      {
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        status,
        ...(content ? { content } : {}),
        rawOutput: { content: text.slice(-SHOWN_OUTPUT_CHARS), isError: result.is_error === true },
      },
    ];
  }
}

function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

/** Output shown as a code block (a command's output is not Markdown). */
function fenced(text: string): string {
  const fence = text.includes("```") ? "````" : "```";
  return `${fence}\n${text.replace(/\n$/, "")}\n${fence}`;
}

function resultText(result: ToolResultBlock): string {
  const text =
    typeof result.content === "string"
      ? result.content
      : (result.content ?? []).flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
  return text.length > SHOWN_OUTPUT_CHARS ? `…${text.slice(-SHOWN_OUTPUT_CHARS)}` : text;
}

const PLAN_STATUS: Record<string, PlanEntryStatus> = {
  pending: "pending",
  in_progress: "in_progress",
  completed: "completed",
};

/** A TodoWrite list as ACP's plan (every entry, each time: the client replaces the plan). */
export function planOf(input: unknown): SessionUpdate | undefined {
  const todos = (input as { todos?: unknown })?.todos;
  if (!Array.isArray(todos)) return undefined;
  return {
    sessionUpdate: "plan",
    entries: todos.flatMap((todo) => {
      const item = todo as { content?: unknown; status?: unknown };
      if (typeof item?.content !== "string") return [];
      return [
        {
          content: item.content,
          priority: "medium" as const,
          status: PLAN_STATUS[String(item.status)] ?? "pending",
        },
      ];
    }),
  };
}
