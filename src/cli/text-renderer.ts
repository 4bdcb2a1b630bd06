import type { AgentEvent } from "../loop/agent-event.js";
import type { ToolResultBlock, ToolUseBlock } from "../messages/index.js";
import type { Style } from "./style.js";

export interface TextRendererOptions {
  write: (text: string) => void;
  style: Style;
  /** Returns the short human summary of a call, e.g. `Read src/a.ts` (the tool's `summarize`). */
  summarize: (block: ToolUseBlock) => string;
  /** Whether a tool's input is shown as it streams (tools with eager input streaming: a file's content). */
  showsInputLive: (toolName: string) => boolean;
  /** After each model call, a dim line with its token usage (input, output, cache reads and writes). */
  usagePerTurn?: boolean;
  /** Lines of a tool result shown under the call (default 4; diffs are shown whole up to 60 lines). */
  resultLines?: number;
}

/**
 * Renders agent events as they arrive: assistant text streams as is, thinking dimmed, each tool call as
 * `● Summary`, eagerly streamed string inputs (a file's content) live under the call, and a few lines of
 * each result. Holds only the state of the block being streamed, so it is O(1) per delta.
 */
export function createTextRenderer(options: TextRendererOptions): (event: AgentEvent) => void {
  const { write, style } = options;
  const maxLines = options.resultLines ?? 4;
  let atLineStart = true;
  let livePath: string | undefined;
  /** Block ids whose input is being shown live; their calls then need no second header. */
  let liveBlock: string | undefined;
  const shown = new Set<string>();

  const out = (text: string) => {
    if (text.length === 0) return;
    write(text);
    atLineStart = text.endsWith("\n");
  };
  const newline = () => {
    if (!atLineStart) out("\n");
  };

  return (event) => {
    switch (event.type) {
      case "text-delta":
        out(event.delta);
        break;
      case "text-end":
        newline();
        break;
      case "thinking-start":
        newline();
        out(style.dim("✻ thinking: "));
        break;
      case "thinking-delta":
        out(style.dim(event.delta));
        break;
      case "thinking-end":
        newline();
        break;
      case "tool-input-start":
        livePath = undefined;
        liveBlock = undefined;
        if (!options.showsInputLive(event.name)) break;
        newline();
        out(`${style.cyan("●")} ${style.bold(event.name)}\n`);
        liveBlock = event.id;
        shown.add(event.toolUseId);
        break;
      case "tool-input-delta":
        if (event.id !== liveBlock) break;
        for (const chunk of event.strings) {
          const path = chunk.path.join(".");
          if (path !== livePath) {
            newline();
            out(style.dim(`  ${path}: `));
            livePath = path;
          }
          out(style.dim(chunk.text));
        }
        break;
      case "tool-input-end":
        if (event.id === liveBlock) newline();
        livePath = undefined;
        liveBlock = undefined;
        break;
      case "tool-call-start":
        newline();
        if (!shown.delete(event.block.id)) out(`${style.cyan("●")} ${options.summarize(event.block)}\n`);
        break;
      case "tool-call-end":
        out(renderResult(event.result, style, maxLines));
        break;
      case "message":
        if (options.usagePerTurn && event.message.role === "assistant" && event.message.usage) {
          const u = event.message.usage;
          newline();
          out(
            style.dim(
              `  ↳ turn ${event.turn}: ${u.input_tokens} in, ${u.output_tokens} out, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write\n`,
            ),
          );
        }
        break;
      case "retry":
        newline();
        out(
          style.yellow(
            `↻ ${event.reason}; retrying in ${Math.round(event.delayMs)} ms (attempt ${event.attempt})\n`,
          ),
        );
        break;
      case "warning":
        newline();
        out(style.yellow(`⚠ ${event.message}\n`));
        break;
      case "agent-end":
        newline();
        if (event.reason === "error" && event.error) out(style.red(`✖ ${event.error.message}\n`));
        else if (event.reason === "max_turns") out(style.yellow("⚠ stopped: the turn limit was reached\n"));
        else if (event.reason === "max_tokens")
          out(style.yellow("⚠ stopped: the answer was cut at max_tokens\n"));
        else if (event.reason === "aborted") out(style.yellow("⚠ interrupted\n"));
        else if (event.reason === "refusal") out(style.yellow("⚠ the model refused to answer\n"));
        break;
      default:
        break;
    }
  };
}

function resultText(result: ToolResultBlock): string {
  if (typeof result.content === "string") return result.content;
  return result.content.map((b) => (b.type === "text" ? b.text : `[image ${b.source.type}]`)).join("\n");
}

/** A few lines of a tool result; a unified diff is shown whole (coloured) up to 60 lines. */
export function renderResult(result: ToolResultBlock, style: Style, maxLines: number): string {
  const lines = resultText(result).split("\n");
  const isDiff = lines.some((l) => l.startsWith("@@ "));
  const limit = isDiff ? 60 : maxLines;
  const shown = lines.slice(0, limit).map((line) => {
    if (result.is_error) return style.red(line);
    if (isDiff && line.startsWith("+") && !line.startsWith("+++")) return style.green(line);
    if (isDiff && line.startsWith("-") && !line.startsWith("---")) return style.red(line);
    return style.dim(line);
  });
  const more = lines.length > limit ? [style.dim(`… (+${lines.length - limit} lines)`)] : [];
  return `${[...shown, ...more].map((l, i) => `${i === 0 ? "  ⎿ " : "    "}${l}`).join("\n")}\n`;
}
