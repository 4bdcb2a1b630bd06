import type { AgentEvent } from "../../loop/agent-event.js";
import type { ToolResultBlock, ToolUseBlock } from "../../messages/index.js";
import { denialNote } from "./refusal-note.js";
import type { Style } from "./style.js";
import { stripControls } from "./terminal-text.js";

export interface SubagentRendererOptions {
  /** The renderer of the main agent's events (the text renderer). */
  render: (event: AgentEvent) => void;
  style: Style;
  /** The short summary of a call, e.g. `Grep auth` (the tools' `summarize`). */
  summarize: (block: ToolUseBlock) => string;
  /**
   * `--verbose`: each sub-agent's whole stream is shown, line by line, each line marked with the sub-agent's
   * task; without it a sub-agent is one compact status under its Task call.
   */
  verbose?: boolean;
  /** Makes the renderer that shows one sub-agent's stream in verbose mode (its output goes to `write`). */
  childRenderer?: (write: (text: string) => void) => (event: AgentEvent) => void;
  /** Where the verbose lines go (the same place as the main renderer's output). */
  write?: (text: string) => void;
  /**
   * At a terminal, where the compact line is redrawn in place. Elsewhere (a pipe, a file) a sub-agent's tool
   * calls and warnings go to the main renderer, which lists each as a dim `↳` line under the Task call.
   */
  live?: boolean;
}

interface Running {
  description: string;
  toolCalls: number;
  tokens: number;
  current?: string;
  /** Verbose: the child's renderer and its unfinished line. */
  child?: (event: AgentEvent) => void;
  pending: string;
}

/**
 * Puts sub-agents on screen around the main renderer. Each running sub-agent (the events whose `agentPath`
 * starts with a Task call's id) is one compact line under its Task call: its task, its current tool call, and
 * counts of tool calls and tokens, drawn as the Task call's progress (the main renderer's status line, which is
 * redrawn in place at a terminal); in a pipe its tool calls are listed instead (see `live`). When it ends, the Task's result collapses to one line:
 * how it ended and what it took. With `verbose`, its whole stream is shown instead, each line marked with its
 * task. The main agent's events pass through unchanged.
 */
export function createSubagentRenderer(options: SubagentRendererOptions): (event: AgentEvent) => void {
  const { render, style, summarize } = options;
  const running = new Map<string, Running>();

  const summary = (run: Running) =>
    [
      run.current ?? "starting",
      `${run.toolCalls} tool ${run.toolCalls === 1 ? "call" : "calls"}`,
      `${formatTokens(run.tokens)} tokens`,
    ].join(" · ");
  /**
   * The status line is one line: one sub-agent shows its summary under its Task call; several running at once
   * share it, each as `task: current call (tool calls, tokens)`, under the Task call started last (the one right
   * above the line).
   */
  const compact = (turn: number) => {
    const live = [...running.entries()].filter(([, r]) => !r.child);
    const last = live.at(-1);
    if (!last) return;
    const text =
      live.length === 1
        ? summary(last[1])
        : live
            .map(
              ([, r]) =>
                `${r.description}: ${r.current ?? "starting"} (${r.toolCalls}, ${formatTokens(r.tokens)})`,
            )
            .join("  │  ");
    render({ type: "tool-progress", toolUseId: last[0], text: `${text}\n`, turn, agentPath: [] });
  };

  const verboseLine = (run: Running, text: string) => {
    run.pending += text;
    const lines = run.pending.split("\n");
    run.pending = lines.pop() ?? "";
    for (const line of lines) options.write?.(`  ${style.dim(`┆ ${run.description} ┆`)} ${line}\n`);
  };

  return (event) => {
    const root = event.agentPath[0];
    if (root === undefined) {
      if (event.type === "tool-call-start" && event.block.name === "Task") {
        const input = event.block.input as { description?: unknown; subagent_type?: unknown };
        // The model wrote it: no control sequence of it reaches the terminal.
        const description = stripControls(String(input.description ?? input.subagent_type ?? "sub-agent"));
        const run: Running = { description, toolCalls: 0, tokens: 0, pending: "" };
        if (options.verbose && options.childRenderer) {
          run.child = options.childRenderer((text) => verboseLine(run, text));
        }
        running.set(event.block.id, run);
        render(event);
        return;
      }
      if (event.type === "tool-call-end" && running.has(event.block.id)) {
        const run = running.get(event.block.id) as Running;
        running.delete(event.block.id);
        if (run.pending !== "") verboseLine(run, "\n");
        render(options.verbose ? event : { ...event, result: collapsed(event.result) });
        return;
      }
      render(event);
      return;
    }
    const run = running.get(root);
    if (!run) return; // A late event of a sub-agent whose Task already ended.
    if (run.child) {
      // Shown as a stream of its own: to its renderer it is the top level (a grandchild is still a child).
      run.child({ ...event, agentPath: event.agentPath.slice(1) } as AgentEvent);
      return;
    }
    const denied = event.type === "tool-call-end" ? denialNote(event.result) : undefined;
    if (!options.live && (event.type === "tool-call-start" || event.type === "warning" || denied))
      render(event);
    else if (denied && event.type === "tool-call-end") {
      // At a terminal the compact line is redrawn; a refusal stays, as a line of its own.
      options.write?.(
        `  ${style.yellow(`↳ ${run.description}: ${summarize(event.block)} — ${stripControls(denied)}`)}\n`,
      );
    }
    if (event.type === "tool-call-start") {
      run.toolCalls++;
      run.current = summarize(event.block);
      compact(event.turn);
    } else if (event.type === "message" && event.message.role === "assistant" && event.message.usage) {
      const u = event.message.usage;
      run.tokens +=
        u.input_tokens +
        u.output_tokens +
        (u.cache_read_input_tokens ?? 0) +
        (u.cache_creation_input_tokens ?? 0);
      compact(event.turn);
    } else if (event.type === "retry") {
      // A sub-agent waiting on retries would otherwise look stuck.
      run.current = `retrying: ${event.reason}`;
      compact(event.turn);
    } else if (event.type === "turn-start" && event.agentPath.length === 1 && event.turn === 1) {
      compact(event.turn);
    }
  };
}

/** The Task result as one line: `done: 3 turns, …` or why it stopped, with the same counts. */
function collapsed(result: ToolResultBlock): ToolResultBlock {
  const text =
    typeof result.content === "string"
      ? result.content
      : result.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
  const lines = text.split("\n");
  const stats = /^\[(.+)\]$/.exec(lines.at(-1) ?? "")?.[1];
  if (stats === undefined) return result; // Not a sub-agent's answer (unknown type, no spawner): as it is.
  const line = result.is_error ? `${lines[0]} [${stats}]` : `Done — ${stats}`;
  return { ...result, content: line };
}

/** `950`, `12.3k`, `1.2M`. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Number((n / 1000).toFixed(1))}k`;
  return `${Number((n / 1_000_000).toFixed(1))}M`;
}
