import type { AgentEvent } from "../../loop/agent-event.js";
import type { ToolResultBlock, ToolUseBlock } from "../../messages/index.js";
import { compactionNotice } from "./compaction-notice.js";
import { denialNote, refusalNote } from "./refusal-note.js";
import { ERASE_LINE, fitWidth, LastLine } from "./status-line.js";
import type { Style } from "./style.js";
import { showControls, stripControls, TerminalTextFilter } from "./terminal-text.js";
import { renderChecklist, todosOf } from "./todo-checklist.js";

export interface TextRendererOptions {
  write: (text: string) => void;
  /** Hide the model's thinking (a one-line "✻ thinking…" instead); default: shown, dimmed, as it streams. */
  hideThinking?: boolean;
  /**
   * Where notices about the run go: retries, warnings, token usage, how it ended (default: `write`). Print mode
   * sends them to stderr, so that `mitsu -p … > answer.txt` keeps only the work and the answer.
   */
  notice?: (text: string) => void;
  /** A hint for a failed run (what to check), printed under the error. */
  errorHint?: (error: { type: string; message: string; retryAfterMs?: number }) => string | undefined;
  style: Style;
  /** Returns the short human summary of a call, e.g. `Read src/a.ts` (the tool's `summarize`). */
  summarize: (block: ToolUseBlock) => string;
  /** Whether a tool's input is shown as it streams (tools with eager input streaming: a file's content). */
  showsInputLive: (toolName: string) => boolean;
  /** After each model call, a dim line with its token usage (input, output, cache reads and writes). */
  usagePerTurn?: boolean;
  /** Said after the "… (+N lines)" of a result shown in part: the key that shows it whole (interactive mode). */
  moreHint?: string;
  /** Lines of a tool result shown under the call (default 4; diffs are shown whole up to 60 lines). */
  resultLines?: number;
  /**
   * At a terminal: one status line under a running call with the last line of its progress (a command's
   * output as it arrives), redrawn in place and erased before anything else is printed. Off for pipes and
   * captured output, where nothing of the progress is written (the result shows its end, as without it).
   */
  liveStatus?: boolean;
  /** The terminal's width, to cut the status line to (it must never wrap). Default 80; a function is asked on each draw. */
  columns?: number | (() => number);
  /**
   * Draws the status line in place of the one on screen; "" erases it. Default: `\r`, erase line, the line,
   * through `write`. Interactive mode passes its held output's, which keeps it off a permission question.
   */
  writeStatus?: (line: string) => void;
  /**
   * Draws the assistant's text as Markdown: makes one line writer per text block (e.g. a `MarkdownWriter` at
   * the terminal's width), fed the block's raw deltas; it filters control sequences itself and writes whole
   * lines through the `write` it is given. Without it, text streams as it arrives, raw: print mode keeps
   * Markdown as written, since scripts read it.
   */
  markdown?: (write: (text: string) => void) => { push(delta: string): void; end(): void };
}

/**
 * Renders agent events as they arrive: assistant text streams as is, thinking dimmed, each tool call as
 * `● Summary`, eagerly streamed string inputs (a file's content) live under the call, indented, and a few
 * lines of each result. A result that does not follow its own call (parallel calls) is preceded by the call's
 * summary again, so that each result says which call it answers. With `liveStatus`, a running call's
 * progress shows as one status line under it (see the option). A sub-agent's tool calls show as dim `↳` lines
 * (see `renderChild`). Holds only the state of the block being
 * streamed (and one line per running call), so it is O(1) per delta.
 *
 * Nothing the model, a tool or a server wrote reaches the terminal with its control sequences: streamed text
 * goes through a `TerminalTextFilter` (a sequence may be cut between deltas), the rest through `stripControls`;
 * a call's summary shows them as escapes (`showControls`), since the user reads it to know what runs.
 */
export function createTextRenderer(options: TextRendererOptions): (event: AgentEvent) => void {
  const core = rendererCore(options);
  const handlers = [streamEvents(core, options), toolEvents(core, options), noticeEvents(core, options)];
  return (event) => {
    // Tolerant of events built by hand without a path (a replayed stream-json log): they are the top level's.
    if ((event.agentPath?.length ?? 0) > 0) return core.renderChild(event);
    for (const handle of handlers) if (handle(event)) return;
  };
}

/** What the renderer draws with: the screen's state (what was printed last) and the writers over it. */
type RendererCore = ReturnType<typeof rendererCore>;

/** The renderer's state and its writers: plain output, notices, the status line, live input, a task list. */
function rendererCore(options: TextRendererOptions) {
  const { write, style } = options;
  /** What the handlers share: where the cursor is, the call and the block shown last. */
  const st = {
    atLineStart: true,
    livePath: undefined as string | undefined,
    /** Block ids whose input is being shown live; their calls then need no second header. */
    liveBlock: undefined as string | undefined,
    liveCall: undefined as string | undefined,
    /** The call whose header (or live input) is the last thing printed: its result needs no header again. */
    lastCall: undefined as string | undefined,
    /** Rows of the task list block (its call's line and checklist) when it is the last thing printed. */
    checklistRows: undefined as number | undefined,
    /** The text block being drawn as Markdown, and its writer. */
    markdown: undefined as { id: string; writer: { push(delta: string): void; end(): void } } | undefined,
  };
  /** Block ids whose input is being shown live; their calls then need no second header. */
  const shown = new Set<string>();
  /** The call whose header (or live input) is the last thing printed: its result needs no header again. */
  /** The running calls' progress (only with `liveStatus`), by tool_use id, and their summaries. */
  const running = new Map<string, { line: LastLine; summary: string }>();
  /** The status line on screen ("" when none). */
  let status = "";
  /** Rows of the task list block (its call's line and checklist) when it is the last thing printed. */
  /** TodoWrite calls whose list replaces the one right above them (at a terminal, nothing printed between). */
  const inPlace = new Set<string>();
  const writeStatus = options.writeStatus ?? ((line: string) => write(`${ERASE_LINE}${line}`));
  /** The block being streamed (text, thinking or live input) and the filter its deltas go through. */
  let streaming: { id: string; filter: TerminalTextFilter } | undefined;
  const safe = (id: string, delta: string) => {
    if (streaming?.id !== id) streaming = { id, filter: new TerminalTextFilter() };
    return streaming.filter.push(delta);
  };
  const endStream = (id: string) => {
    if (streaming?.id !== id) return "";
    const rest = streaming.filter.flush();
    streaming = undefined;
    return rest;
  };
  /** The text block being drawn as Markdown, and its writer. */
  const summarize = (block: ToolUseBlock) => showControls(options.summarize(block));
  const columns = () => {
    const value = typeof options.columns === "function" ? options.columns() : options.columns;
    return value !== undefined && value > 0 ? value : 80;
  };
  const eraseStatus = () => {
    if (status === "") return;
    status = "";
    writeStatus("");
  };
  const showStatus = (id: string) => {
    const call = running.get(id);
    const text = call?.line.text ?? "";
    if (!call || text === "") return;
    // Not right under its call's header (a parallel call's header or result came between): say whose it is.
    const label = st.lastCall === id ? text : `${call.summary}: ${text}`;
    const prefix = "  ⎿ ";
    // One cell spare: a line that fills the last column wraps on some terminals.
    const line = `${prefix}${style.dim(fitWidth(label, columns() - prefix.length - 1))}`;
    if (line === status) return;
    newline();
    status = line;
    writeStatus(line);
  };

  const out = (text: string) => {
    if (text.length === 0) return;
    eraseStatus();
    write(text);
    st.atLineStart = text.endsWith("\n");
    st.lastCall = undefined;
    st.checklistRows = undefined;
  };
  /** A task list under its call: redrawn over the previous list when that is the last thing on screen. */
  const checklist = (block: ToolUseBlock, todos: NonNullable<ReturnType<typeof todosOf>>) => {
    const rows = st.checklistRows;
    if (inPlace.delete(block.id)) st.lastCall = undefined;
    if (options.liveStatus && rows !== undefined) {
      eraseStatus();
      // Up to the previous list's call line, then erase to the end of the screen.
      write(`\u001b[${rows}A\r\u001b[0J`);
      st.lastCall = undefined;
    }
    if (st.lastCall !== block.id) {
      newline();
      out(`${style.cyan("●")} ${summarize(block)}\n`);
    }
    out(renderChecklist(todos, style, options.liveStatus ? columns() : undefined));
    st.checklistRows = 1 + Math.max(1, todos.length);
  };
  const newline = () => {
    if (!st.atLineStart) out("\n");
  };
  /** A notice on its own line: the current line is ended first (stdout and stderr may share a terminal). */
  const notice = (text: string) => {
    eraseStatus();
    newline();
    if (options.notice) options.notice(text);
    else out(text);
  };
  /** Live input, its lines indented under the call so that a file's content does not read as the answer. */
  const liveText = (text: string) => {
    text.split("\n").forEach((piece, i) => {
      if (i > 0) out("\n");
      if (piece === "") return;
      if (st.atLineStart) out("    ");
      out(style.dim(piece));
    });
  };

  /**
   * A sub-agent's events (a Task call's child): only its tool calls, one dim line each under the Task call,
   * indented by depth, and its warnings. Its text is its answer to the Task tool, which shows it as the result.
   */
  const renderChild = (event: AgentEvent) => {
    if (event.type === "warning") return notice(style.yellow(`⚠ ${stripControls(event.message)}\n`));
    if (event.type === "tool-call-end") {
      const denied = denialNote(event.result);
      if (!denied) return;
      eraseStatus();
      newline();
      out(
        style.yellow(
          `${"  ".repeat(event.agentPath.length)}↳ ${summarize(event.block)} — ${stripControls(denied)}\n`,
        ),
      );
      st.lastCall = undefined;
      return;
    }
    if (event.type !== "tool-call-start") return;
    eraseStatus();
    newline();
    out(style.dim(`${"  ".repeat(event.agentPath.length)}↳ ${summarize(event.block)}\n`));
    // The Task call's result then names its call again: other lines came between.
    st.lastCall = undefined;
  };

  return {
    out,
    newline,
    notice,
    safe,
    endStream,
    showStatus,
    checklist,
    liveText,
    renderChild,
    eraseStatus,
    summarize,
    columns,
    running,
    shown,
    inPlace,
    st,
  };
}

/** Text, thinking and live tool input, as they stream. Returns whether the event was one of these. */
function streamEvents(core: RendererCore, options: TextRendererOptions): (event: AgentEvent) => boolean {
  const { out, newline, safe, endStream, liveText, shown, st } = core;
  const { style } = options;
  return (event) => {
    switch (event.type) {
      case "text-delta":
        if (options.markdown) {
          if (st.markdown?.id !== event.id) {
            st.markdown?.writer.end();
            newline();
            st.markdown = { id: event.id, writer: options.markdown(out) };
          }
          st.markdown.writer.push(event.delta);
        } else out(safe(event.id, event.delta));
        break;
      case "text-end":
        if (st.markdown?.id === event.id) {
          st.markdown.writer.end();
          st.markdown = undefined;
        } else out(endStream(event.id));
        newline();
        break;
      case "thinking-start":
        newline();
        out(style.dim(options.hideThinking ? "✻ thinking…" : "✻ thinking: "));
        break;
      case "thinking-delta": {
        const text = safe(event.id, event.delta);
        if (text !== "" && !options.hideThinking) out(style.dim(text));
        break;
      }
      case "thinking-end": {
        const rest = endStream(event.id);
        if (rest !== "" && !options.hideThinking) out(style.dim(rest));
        newline();
        break;
      }
      case "tool-input-start":
        st.livePath = undefined;
        st.liveBlock = undefined;
        if (!options.showsInputLive(event.name)) break;
        newline();
        out(`${style.cyan("●")} ${style.bold(showControls(event.name))}\n`);
        st.liveBlock = event.id;
        st.liveCall = event.toolUseId;
        st.lastCall = st.liveCall;
        shown.add(event.toolUseId);
        break;
      case "tool-input-delta":
        if (event.id !== st.liveBlock) break;
        for (const chunk of event.strings) {
          const path = showControls(chunk.path.join("."));
          if (path !== st.livePath) {
            liveText(endStream(event.id));
            newline();
            out(style.dim(`  ${path}: `));
            st.livePath = path;
          }
          liveText(safe(event.id, chunk.text));
        }
        st.lastCall = st.liveCall;
        break;
      case "tool-input-end":
        if (event.id === st.liveBlock) {
          liveText(endStream(event.id));
          newline();
          st.lastCall = st.liveCall;
        }
        st.livePath = undefined;
        st.liveBlock = undefined;
        st.liveCall = undefined;
        break;
      default:
        return false;
    }
    return true;
  };
}

/** A tool call's header, progress and result. Returns whether the event was one of these. */
function toolEvents(core: RendererCore, options: TextRendererOptions): (event: AgentEvent) => boolean {
  const { out, newline, showStatus, checklist, eraseStatus, summarize, running, shown, inPlace, st } = core;
  const { style } = options;
  const maxLines = options.resultLines ?? 4;
  return (event) => {
    switch (event.type) {
      case "tool-call-start":
        if (options.liveStatus) {
          running.set(event.block.id, { line: new LastLine(), summary: summarize(event.block) });
        }
        // A call shown live already has its header; its result names it again if other output came between.
        if (shown.delete(event.block.id)) break;
        // At a terminal a task list's call is drawn when its list is, with it (see `checklist`): a header now would
        // stand between the list on screen and the one replacing it (two TodoWrite calls in one answer left the
        // first list drawn, stale, under both headers).
        if (options.liveStatus && todosOf(event.block)) {
          inPlace.add(event.block.id);
          break;
        }
        newline();
        out(`${style.cyan("●")} ${summarize(event.block)}\n`);
        st.lastCall = event.block.id;
        break;
      case "tool-progress":
        if (!options.liveStatus) break;
        running.get(event.toolUseId)?.line.push(event.text);
        showStatus(event.toolUseId);
        break;
      case "tool-call-end": {
        running.delete(event.block.id);
        eraseStatus();
        const todos = event.result.is_error ? undefined : todosOf(event.block);
        if (todos) {
          checklist(event.block, todos);
          break;
        }
        if (inPlace.delete(event.block.id)) st.lastCall = undefined;
        if (st.lastCall !== event.block.id) {
          newline();
          out(`${style.cyan("●")} ${summarize(event.block)}\n`);
        }
        // A refusal's text is for the model ("STOP what you are doing…"); the user sees what happened.
        const refused = refusalNote(event.result);
        if (refused) {
          out(`  ⎿ ${style.yellow(refused)}\n`);
          break;
        }
        out(
          event.block.name === "Read" && !event.result.is_error
            ? readSummary(event.result, style)
            : renderResult(event.result, style, maxLines, event.block.name === "Bash", options.moreHint),
        );
        break;
      }
      default:
        return false;
    }
    return true;
  };
}

/** Usage per turn, retries, stalls, warnings, compaction and the run's end, each on its own line. */
function noticeEvents(core: RendererCore, options: TextRendererOptions): (event: AgentEvent) => boolean {
  const { newline, notice, eraseStatus, running, st } = core;
  const { style } = options;
  return (event) => {
    switch (event.type) {
      case "message":
        if (options.usagePerTurn && event.message.role === "assistant" && event.message.usage) {
          const u = event.message.usage;
          notice(
            style.dim(
              `  ↳ turn ${event.turn}: ${u.input_tokens} in, ${u.output_tokens} out, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write\n`,
            ),
          );
        }
        break;
      case "retry":
        notice(
          style.yellow(
            `↻ ${stripControls(event.reason)}; retrying in ${formatDelay(event.delayMs)} (attempt ${event.attempt})\n`,
          ),
        );
        break;
      case "stream-stalled":
        notice(
          style.dim(
            `… no data from the provider for ${formatDelay(event.silentMs)}; waiting (gives up at ${formatDelay(event.timeoutMs)})\n`,
          ),
        );
        break;
      case "warning":
        notice(style.yellow(`⚠ ${stripControls(event.message)}\n`));
        break;
      case "history-replaced":
        notice(style.dim(`⟲ ${compactionNotice({ ...event, automatic: true })}\n`));
        break;
      case "agent-end":
        // An interrupted answer has no text-end: what it had still shows.
        st.markdown?.writer.end();
        st.markdown = undefined;
        running.clear();
        eraseStatus();
        newline();
        if (event.reason === "error" && event.error) {
          const hint = options.errorHint?.(event.error);
          notice(
            style.red(`✖ ${stripControls(event.error.message)}\n`) +
              (hint ? style.dim(`  ${stripControls(hint)}\n`) : ""),
          );
        } else if (event.reason === "max_turns") {
          notice(style.yellow("⚠ stopped: the turn limit was reached (--max-turns raises it)\n"));
        } else if (event.reason === "max_tokens") {
          notice(style.yellow("⚠ stopped: the answer was cut at max_tokens (--max-tokens raises it)\n"));
        } else if (event.reason === "aborted") notice(style.yellow("⚠ interrupted\n"));
        else if (event.reason === "refusal") notice(style.yellow("⚠ the model refused to answer\n"));
        break;
      default:
        return false;
    }
    return true;
  };
}

/** A retry delay as a person reads it: `350 ms`, `2 s`, `1.5 s`. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/**
 * A result's text as a terminal would leave it, minus control sequences: within a line, a carriage return starts
 * it again (a progress bar shows its last state), then every control sequence goes.
 */
export function resultText(result: ToolResultBlock): string {
  const text =
    typeof result.content === "string"
      ? result.content
      : result.content.map((b) => (b.type === "text" ? b.text : `[image ${b.source.type}]`)).join("\n");
  return text
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      return stripControls(trimmed.slice(trimmed.lastIndexOf("\r") + 1));
    })
    .join("\n");
}

/**
 * A few lines of a tool result; a unified diff is shown whole (coloured) up to 60 lines. A command's output
 * (`tail`) is shown from its end, where a test run or a build says how it went, without a clean exit's note.
 */
/**
 * A successful Read says what it read, not the file: `⎿ Read 120 lines` (the numbered `cat -n` lines of its
 * result), or `⎿ Read an image` when the result carries no text lines.
 */
export function readSummary(result: ToolResultBlock, style: Style): string {
  const count = resultText(result)
    .split("\n")
    .filter((line) => /^ *\d+\t/.test(line)).length;
  const hasImage =
    Array.isArray(result.content) && result.content.some((b) => typeof b !== "string" && b.type === "image");
  const what =
    count > 0
      ? `Read ${count} ${count === 1 ? "line" : "lines"}`
      : hasImage
        ? "Read an image"
        : "Read (empty)";
  return `  ⎿ ${style.dim(what)}\n`;
}

/** Characters of one result line shown at most. */
const MAX_LINE_CHARS = 2000;

/** A line cut to `MAX_LINE_CHARS` (its end kept for a command's output, whose end says how it went). */
function capLine(line: string, fromEnd: boolean): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const cut = `… (${(line.length - MAX_LINE_CHARS).toLocaleString("en-US")} characters more)`;
  return fromEnd ? `${cut} ${line.slice(-MAX_LINE_CHARS)}` : `${line.slice(0, MAX_LINE_CHARS)} ${cut}`;
}

export function renderResult(
  result: ToolResultBlock,
  style: Style,
  maxLines: number,
  tail = false,
  moreHint?: string,
): string {
  const hint = moreHint ? ` · ${moreHint}` : "";
  let lines = resultText(result).split("\n");
  if (tail && !result.is_error) {
    lines = lines.filter((l) => l !== "[Exit code: 0]");
    while (lines.length > 1 && lines.at(-1) === "") lines.pop();
  }
  const isDiff = lines.some((l) => l.startsWith("@@ "));
  const limit = isDiff ? 60 : maxLines;
  // Lines are capped by characters too: one line of 100,000 characters (minified code, a base64 blob) would
  // otherwise be printed whole. Shown whole (Ctrl-O) it is not cut.
  if (maxLines < Number.MAX_SAFE_INTEGER) lines = lines.map((line) => capLine(line, tail));
  if (tail && !isDiff && lines.length > limit) {
    const hidden = lines.length - limit;
    const kept = lines.slice(hidden).map((line) => (result.is_error ? style.red(line) : style.dim(line)));
    return `${[style.dim(`… (${hidden} ${hidden === 1 ? "line" : "lines"} above${hint})`), ...kept].map((l, i) => `${i === 0 ? "  ⎿ " : "    "}${l}`).join("\n")}\n`;
  }
  const shown = lines.slice(0, limit).map((line) => {
    if (result.is_error) return style.red(line);
    if (isDiff && line.startsWith("+") && !line.startsWith("+++")) return style.green(line);
    if (isDiff && line.startsWith("-") && !line.startsWith("---")) return style.red(line);
    return style.dim(line);
  });
  const extra = lines.length - limit;
  const more = extra > 0 ? [style.dim(`… (+${extra} ${extra === 1 ? "line" : "lines"}${hint})`)] : [];
  return `${[...shown, ...more].map((l, i) => `${i === 0 ? "  ⎿ " : "    "}${l}`).join("\n")}\n`;
}
