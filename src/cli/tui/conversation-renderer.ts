import type { CodingAgent } from "../../harness/index.js";
import type { AgentEvent } from "../../loop/agent-event.js";
import type { ToolResultBlock, ToolUseBlock } from "../../messages/index.js";
import type { CliOptions } from "../cli-options.js";
import { errorHint } from "../render/error-hint.js";
import { refusalNote } from "../render/refusal-note.js";
import type { Style } from "../render/style.js";
import { createSubagentRenderer } from "../render/subagent-renderer.js";
import { stripControls } from "../render/terminal-text.js";
import { createTextRenderer, readSummary, renderResult } from "../render/text-renderer.js";
import { LiveInputTail } from "./live-input-tail.js";
import type { Screen } from "./screen.js";

/** Said beside a result shown in part. */
const MORE_HINT = "ctrl+o to expand";

/**
 * What a run's events draw on the screen: the text renderer (print mode's, with the status line under a
 * running call and the answer streamed as Markdown), sub-agents as one line each, the working indicator fed,
 * and each result shown in part made expandable with Ctrl-O.
 */
export function conversationRenderer(
  agent: CodingAgent,
  style: Style,
  screen: Screen,
  io: { env: NodeJS.ProcessEnv },
  options: CliOptions,
  markdown: typeof import("../render/markdown/index.js") | undefined,
) {
  const { verbose } = options;
  const hideThinking = options.hideThinking === true;
  // The screen's width: a terminal that reports none (0) is 80 wide, as the screen draws it.
  const columns = () => screen.width;
  const width = () => columns() - 1;
  const hyperlinks = markdown?.supportsHyperlinks(io.env) ?? false;
  /**
   * The main agent's answer as Markdown, drawn live after the conversation as it streams (each delta redraws
   * only its open block), then written into the conversation when the block ends; a sub-agent's (`--verbose`)
   * by finished lines.
   */
  const markdownFor = (live: boolean) => {
    if (!markdown) return {};
    if (!live) {
      return {
        markdown: (write: (text: string) => void) =>
          new markdown.MarkdownWriter({ write, width, color: style.enabled, hyperlinks }),
      };
    }
    return {
      markdown: (write: (text: string) => void) => {
        const stream = new markdown.MarkdownStream({ color: style.enabled, hyperlinks });
        screen.setTail(stream);
        let ended = false;
        /** The answer's Markdown, to draw it again at another width (a resized terminal). */
        let source = "";
        return {
          push(delta: string) {
            source += delta;
            stream.append(delta);
            screen.refresh();
          },
          end() {
            if (ended) return;
            ended = true;
            stream.end();
            const lines = stream.render(width());
            screen.setTail(undefined);
            if (lines.length === 0) return;
            const from = screen.mark;
            write(`${lines.join("\n")}\n`);
            screen.setRedrawable(from, screen.mark, (columns) => {
              const again = new markdown.MarkdownStream({ color: style.enabled, hyperlinks });
              again.append(source);
              again.end();
              return `${again.render(Math.max(1, columns - 1)).join("\n")}\n`;
            });
          },
        };
      },
    };
  };
  const text = (write: (text: string) => void, liveStatus: boolean) =>
    createTextRenderer({
      write,
      hideThinking,
      // A running command's last line, drawn under the conversation.
      liveStatus,
      writeStatus: (line) => screen.status(line),
      columns,
      style,
      ...markdownFor(liveStatus),
      summarize: (block) => agent.summarize(block),
      // At the terminal a call's input streams after the conversation and goes (see LiveInputTail); a sub-agent's
      // calls are one line each.
      showsInputLive: () => false,
      errorHint: (error) => errorHint(error, agent.providerName),
      moreHint: MORE_HINT,
    });
  const write = (t: string) => screen.write(t);
  const render = createSubagentRenderer({
    render: text(write, true),
    style,
    summarize: (block) => agent.summarize(block),
    verbose,
    live: true,
    write,
    childRenderer: (w) => text(w, false),
  });
  const streamsInput = (name: string) =>
    agent.tools.some((t) => t.name === name && t.eagerInputStreaming === true);
  let liveInput: { id: string; tail: LiveInputTail } | undefined;
  const endLiveInput = () => {
    if (!liveInput) return;
    liveInput = undefined;
    screen.setTail(undefined);
  };
  /** A retry is said under the conversation while it waits, and goes once the call goes on. */
  let retrying = false;
  return (event: AgentEvent) => {
    track(screen, event);
    if ((event.agentPath?.length ?? 0) === 0) {
      if (event.type === "retry") {
        retrying = true;
        screen.status(
          style.yellow(
            `↻ ${stripControls(event.reason)}; retrying in ${Math.max(1, Math.round(event.delayMs / 1000))} s (attempt ${event.attempt})`,
          ),
        );
        return;
      }
      if (retrying && event.type !== "stream-stalled") {
        retrying = false;
        screen.status("");
      }
      if (event.type === "tool-input-start" && streamsInput(event.name)) {
        liveInput = { id: event.id, tail: new LiveInputTail(event.name, style) };
        screen.setTail(liveInput.tail);
      } else if (event.type === "tool-input-delta" && event.id === liveInput?.id) {
        liveInput.tail.push(event.strings);
        screen.refresh();
      } else if (
        (event.type === "tool-input-end" && event.id === liveInput?.id) ||
        event.type === "agent-end"
      ) {
        endLiveInput();
      }
    }
    if (event.type !== "tool-call-end" || (event.agentPath?.length ?? 0) > 0) return render(event);
    // A result shown in part can be shown whole (Ctrl-O): the lines it took, and the whole text.
    const from = screen.mark;
    render(event);
    const to = screen.mark;
    const result = wholeResult(event.block, event.result, style);
    const shown = screen.text(from, to);
    // The call's header above the result stays as it was shown.
    if (result && shown.endsWith(result.part)) {
      screen.setExpandable(from, to, shown.slice(0, shown.length - result.part.length) + result.whole);
    }
  };
}

/** Feeds the working indicator: what the turn does now and the tokens the model wrote. */
function track(screen: Screen, event: AgentEvent): void {
  if ((event.agentPath?.length ?? 0) > 0) return;
  const indicator = screen.indicator;
  switch (event.type) {
    case "text-delta":
      indicator.setLabel("Writing");
      indicator.addStreamed(event.delta.length);
      break;
    case "thinking-delta":
      indicator.setLabel("Thinking");
      indicator.addStreamed(event.delta.length);
      break;
    case "tool-input-delta":
      indicator.addStreamed(event.strings.reduce((n, s) => n + s.text.length, 0));
      break;
    case "tool-call-start":
      indicator.setLabel(`Running ${event.block.name}`);
      break;
    case "message":
      if (event.message.role === "assistant" && event.message.usage) {
        indicator.addCallTokens(event.message.usage.output_tokens);
        indicator.setLabel("Working");
      }
      break;
    default:
      break;
  }
}

/**
 * A tool result as the conversation shows it (`part`: a few lines, a Read's line count) and whole; undefined
 * when it is shown whole, or as a note (a refusal: the text written for the model is never shown).
 */
function wholeResult(
  block: ToolUseBlock,
  result: ToolResultBlock,
  style: Style,
): { part: string; whole: string } | undefined {
  if (refusalNote(result) !== undefined) return undefined;
  const bash = block.name === "Bash";
  const whole = renderResult(result, style, Number.MAX_SAFE_INTEGER, bash);
  const part =
    block.name === "Read" && !result.is_error
      ? readSummary(result, style)
      : renderResult(result, style, 4, bash, MORE_HINT);
  return whole === part ? undefined : { part, whole };
}
