import {
  type Component,
  Container,
  Editor,
  matchesKey,
  type SlashCommand,
  Text,
  TUI,
  truncateToWidth,
} from "@mariozechner/pi-tui";
import type { Style } from "../render/style.js";
import { ChatLog } from "./chat-log.js";
import { HistorySearch } from "./history-search.js";
import { applyKeysInOrder } from "./keys-in-order.js";
import { renderLean } from "./lean-render.js";
import type { LineInput, ReadOptions } from "./line-input.js";
import { createListPicker, type PickerItem } from "./list-picker.js";
import { countPastedLinesRight } from "./paste-count.js";
import { createPromptAutocomplete } from "./prompt-autocomplete.js";
import type { PromptHistory } from "./prompt-history.js";
import { createQuestionDialog, type Question } from "./question-dialog.js";
import { QueuedInput } from "./queued-input.js";
import { StreamTerminal, type TerminalInput, type TerminalOutput } from "./stream-terminal.js";
import { WorkingIndicator } from "./working-indicator.js";

export interface ScreenOptions {
  stdin: TerminalInput;
  stdout: TerminalOutput;
  style: Style;
  cwd: string;
  /** The slash commands Tab completes (asked on each completion). */
  commands: () => SlashCommand[];
  /** The project's prompt history: Up/Down recall it, `remember` adds to it. */
  history: PromptHistory;
}

/** What the keys that are not text do; each returns nothing (the screen consumes the key). */
export interface ScreenKeys {
  /** Ctrl-C (the terminal is raw: no signal reaches the process). */
  interrupt(): void;
  /** Esc, when no dialog or completion list takes it. */
  escape(): void;
  /** Shift-Tab at the prompt: the next permission mode. */
  cycleMode?(): void;
}

/**
 * The interactive screen (pi-tui, differential rendering): the conversation (`write`), the working indicator
 * and the queued prompts under it, then the editor — or, while a question waits, the question dialog in its
 * place — and one status line at the bottom.
 *
 * `input` is the editor as a `LineInput`: a prompt submitted while nobody reads (a turn is running) is queued,
 * shown, and handed to the next `read`; Esc takes the queue back into the editor. Enter sends; Shift-Enter,
 * Ctrl-J or `\` then Enter start a new line; a paste (bracketed) is one prompt, however many lines it has.
 * Keys: Ctrl-C and Esc go to `keys`; Ctrl-D at an empty editor ends the input; Ctrl-O shows the last collapsed
 * output whole (`setExpandable`).
 */
export interface Screen {
  readonly input: LineInput;
  readonly indicator: WorkingIndicator;
  readonly queued: QueuedInput;
  /** Appends text to the conversation. */
  write(text: string): void;
  /** Whether the conversation's text ends a line. */
  readonly atLineStart: boolean;
  /** The terminal's width in cells (80 when it does not say). */
  readonly width: number;
  /** Draws a streaming block after the conversation (see `ChatLog.setTail`); undefined removes it. */
  setTail(component: Component | undefined): void;
  /** Draws the screen again soon (a streaming block changed). */
  refresh(): void;
  /** The line under a running call (its last output line); "" removes it. */
  status(line: string): void;
  /** The bottom status line (model, context, cost). */
  setFooter(line: string): void;
  /** Adds a sent prompt to the history (this session's Up arrow and the project's file). */
  remember(prompt: string): void;
  /** Shows `question` in place of the editor until it is answered (or `signal` aborts: its escape answer). */
  ask<A>(question: Question<A>, signal?: AbortSignal): Promise<A>;
  /** A searchable list in place of the editor (see `createListPicker`): the value picked, or `escape`. */
  pick<A>(title: string, items: readonly PickerItem<A>[], none: A): Promise<A>;
  /** Any dialog in place of the editor (a form), in turn with the questions: its answer, or `none` if withdrawn. */
  show<A>(make: (onChange: () => void) => Dialog<A>, none: A, signal?: AbortSignal): Promise<A>;
  /**
   * The conversation between two marks (`mark`) can be shown whole with Ctrl-O (`full` is its text then): Ctrl-O
   * shows every output shown in part whole (the full transcript), and the next Ctrl-O each in part again.
   */
  setExpandable(from: number, to: number, full: string): void;
  /**
   * The conversation between two marks was drawn for the terminal's width (an answer drawn as Markdown: its
   * paragraphs wrapped, its tables fitted): when the width changes, it is drawn again by `draw(width)`.
   */
  setRedrawable(from: number, to: number, draw: (width: number) => string): void;
  readonly mark: number;
  /** The conversation's text between two marks, as written. */
  text(from: number, to: number): string;
  /** Puts `text` in the editor, after what is there (queued prompts taken back to edit). */
  edit(text: string): void;
  /** Sends `text` as if typed and sent (to the waiting read, else queued): a key that stands for a command. */
  submit(text: string): void;
  /** Called once the input ends (Ctrl-D, `input.close()`). */
  onClose(listener: () => void): void;
  /** Empties the conversation and the terminal (`/clear`). */
  clear(): void;
  onKeys(keys: ScreenKeys): void;
  /** Restores the terminal; the screen's text stays in the scrollback. */
  stop(): void;
}

export function createScreen(options: ScreenOptions): Screen {
  const parts = screenParts(options);
  const { terminal, tui, render, chat, live, indicator, queued, footer, editor } = parts;
  const state = screenState();
  const { input, closeInput } = editorInput(parts, options.style, state);
  redrawOnWidthChange(chat, state);
  const search = historySearch(parts, options);
  listenForKeys(parts, search, state, closeInput);
  const dialogs = dialogShower(parts, options.style, state);
  const refresh = frameLimited(render);

  tui.start();
  // A crash past every finally (an uncaught exception) must not leave the user's terminal raw, with bracketed
  // paste on and the cursor hidden.
  const restore = () => {
    terminal.showCursor();
    terminal.stop();
  };
  process.once("exit", restore);

  return {
    input,
    indicator,
    queued,
    write(text) {
      chat.write(text);
    },
    get atLineStart() {
      return chat.atLineStart;
    },
    get mark() {
      return chat.mark;
    },
    text(from, to) {
      return chat.text(from, to);
    },
    submit(text) {
      editor.onSubmit?.(text);
    },
    edit(text) {
      const now = editor.getText();
      editor.setText(now === "" ? text : `${now}\n${text}`);
      render();
    },
    onClose(listener) {
      state.closeListeners.push(listener);
    },
    get width() {
      return terminal.columns;
    },
    setTail(component) {
      chat.setTail(component);
    },
    refresh,
    status(line) {
      live.setText(line);
      render();
    },
    setFooter(line) {
      footer.line = line;
      render();
    },
    remember(prompt) {
      options.history.add(prompt);
      editor.addToHistory(prompt);
    },
    ask: dialogs.ask,
    pick: dialogs.pick,
    show: dialogs.show,
    setExpandable(from, to, full) {
      const region: Region = { from, to, collapsed: chat.text(from, to), full };
      addRegion(state, region);
      // In the full view, what comes next is shown whole too.
      if (state.expanded) replaceRegion(chat, state, region, full);
    },
    setRedrawable(from, to, draw) {
      addRegion(state, { from, to, draw });
    },
    clear() {
      clearScreen(parts, state);
    },
    onKeys(next) {
      state.keys = next;
    },
    stop() {
      stopScreen(parts, options.stdout, restore);
    },
  };
}

/** The screen's components, top to bottom, and the terminal they are drawn on. */
interface ScreenParts {
  terminal: StreamTerminal;
  tui: TUI;
  render: () => void;
  chat: ChatLog;
  /** The line under a running call. */
  live: Text;
  indicator: WorkingIndicator;
  queued: QueuedInput;
  /** A question's words above the editor, while it reads for one. */
  label: Text;
  /** The history search's line (Ctrl-R). */
  searchLine: Text;
  /** Holds the editor, or the dialog shown in its place. */
  slot: Container;
  footer: FooterLine;
  editor: Editor;
}

/** What the editor's input, the keys, the regions and the dialogs share; it changes while the screen runs. */
interface ScreenState {
  keys: ScreenKeys;
  /** The question or picker shown in place of the editor. */
  dialog: { cancel(): void } | undefined;
  /** Parts of the conversation that Ctrl-O expands or a new width draws again, in order, not overlapping. */
  regions: Region[];
  /** Whether Ctrl-O shows the regions whole. */
  expanded: boolean;
  /** Whether the input has ended. */
  closed: boolean;
  /** Called once the input ends. */
  readonly closeListeners: Array<() => void>;
}

/** The state of a new screen: no keys bound yet, no dialog, no regions, the input open. */
function screenState(): ScreenState {
  return {
    keys: { interrupt: () => {}, escape: () => {} },
    dialog: undefined,
    regions: [],
    expanded: false,
    closed: false,
    closeListeners: [],
  };
}

/** Builds the screen's components and lays them out (the editor focused). */
function screenParts(options: ScreenOptions): ScreenParts {
  const { style } = options;
  const terminal = new StreamTerminal(options.stdin, options.stdout);
  const tui = new TUI(terminal, true);
  renderLean(tui);
  const render = () => tui.requestRender();
  const parts: ScreenParts = {
    terminal,
    tui,
    render,
    chat: new ChatLog(render),
    live: new Text("", 0, 0),
    indicator: new WorkingIndicator(style, render),
    queued: new QueuedInput(style, render),
    label: new Text("", 0, 0),
    searchLine: new Text("", 0, 0),
    slot: new Container(),
    footer: new FooterLine(style),
    editor: promptEditor(tui, options),
  };
  parts.slot.addChild(parts.editor);
  tui.addChild(parts.chat);
  tui.addChild(parts.live);
  tui.addChild(parts.indicator);
  tui.addChild(parts.queued);
  tui.addChild(parts.label);
  tui.addChild(parts.searchLine);
  tui.addChild(parts.slot);
  tui.addChild(parts.footer);
  tui.setFocus(parts.editor);
  return parts;
}

/**
 * The prompt editor: its colours, its border drawn in few bytes, the completion of commands and files, keys
 * applied in the order typed, pasted lines counted, the history of earlier prompts.
 */
function promptEditor(tui: TUI, options: ScreenOptions): Editor {
  const { style } = options;
  const editor = new Editor(
    tui,
    {
      borderColor: (s) => style.dim(s),
      selectList: {
        selectedPrefix: (s) => style.cyan(s),
        selectedText: (s) => style.cyan(s),
        description: (s) => style.dim(s),
        scrollInfo: (s) => style.dim(s),
        noMatch: (s) => style.dim(s),
      },
    },
    { paddingX: 1, autocompleteMaxVisible: 8 },
  );
  // pi-tui styles the editor's border one cell at a time (`ESC[2m─ESC[22m` a hundred times, 1.1 KB a row):
  // drawn again under every frame of a streaming answer, it was most of the bytes sent to the terminal.
  const renderEditor = editor.render.bind(editor);
  editor.render = (width: number) => renderEditor(width).map(joinStyledRuns);
  const completion = createPromptAutocomplete({ commands: options.commands, cwd: options.cwd });
  editor.setAutocompleteProvider(completion);
  applyKeysInOrder(editor, completion);
  countPastedLinesRight(editor);
  for (const prompt of options.history.prompts) editor.addToHistory(prompt);
  return editor;
}

/** The editor as a `LineInput`: a prompt sent while nobody reads waits in the queue. */
function editorInput(
  parts: ScreenParts,
  style: Style,
  state: ScreenState,
): { input: LineInput; closeInput: () => void } {
  const { editor, queued, label, render } = parts;
  let waiting: { finish: (text: string | undefined) => void; fresh: boolean; main: boolean } | undefined;
  const closeInput = () => {
    if (state.closed) return;
    state.closed = true;
    const deliver = waiting;
    waiting = undefined;
    deliver?.finish(undefined);
    for (const listener of state.closeListeners) listener();
  };
  editor.onSubmit = (text) => {
    const deliver = waiting;
    // Enter at an empty editor sends nothing, but answers a question's read ("Enter for none").
    if (text.trim() === "" && (!deliver || deliver.main)) return;
    if (deliver) {
      waiting = undefined;
      deliver.finish(text);
    } else queued.push(text);
  };
  const input: LineInput = {
    get closed() {
      return state.closed;
    },
    get partialLine() {
      return editor.getText();
    },
    read(prompt: string, readOptions: ReadOptions = {}) {
      const { signal } = readOptions;
      if (!readOptions.fresh && queued.length > 0) return Promise.resolve(queued.shift());
      if (state.closed || signal?.aborted) return Promise.resolve(undefined);
      return new Promise<string | undefined>((resolve) => {
        const entry = {
          fresh: readOptions.fresh === true,
          main: prompt.trim() === ">",
          finish: (text: string | undefined) => {
            signal?.removeEventListener("abort", onAbort);
            label.setText("");
            render();
            resolve(text);
          },
        };
        const onAbort = () => {
          if (waiting !== entry) return;
          waiting = undefined;
          entry.finish(undefined);
        };
        waiting = entry;
        signal?.addEventListener("abort", onAbort, { once: true });
        // The main prompt is the editor itself; a question's words stand above it.
        label.setText(prompt.trim() === ">" ? "" : style.yellow(prompt.trimEnd()));
        render();
      });
    },
    clearLine() {
      editor.setText("");
      render();
    },
    onInterrupt(handler) {
      state.keys.interrupt = handler;
    },
    close: closeInput,
  };
  return { input, closeInput };
}

/** Replaces a region's lines; the regions below it move with the lines. */
function replaceRegion(chat: ChatLog, state: ScreenState, region: Region, text: string): void {
  if (region.to > chat.mark) return;
  const size = lineCount(text);
  chat.replace(region.from, region.to, text);
  const delta = region.from + size - region.to;
  region.to = region.from + size;
  for (const other of state.regions) {
    if (other !== region && other.from >= region.to - delta) {
      other.from += delta;
      other.to += delta;
    }
  }
}

/** Adds a region after the others (those it overlaps are forgotten, and the oldest past `MAX_REGIONS`). */
function addRegion(state: ScreenState, region: Region): void {
  state.regions = state.regions.filter((r) => r.to <= region.from);
  state.regions.push(region);
  if (state.regions.length > MAX_REGIONS) state.regions.shift();
}

/** Ctrl-O: every output shown in part whole, and in part again on the next press. */
function toggleExpanded(chat: ChatLog, state: ScreenState): void {
  state.expanded = !state.expanded;
  for (const region of [...state.regions].reverse()) {
    if (region.full === undefined || region.collapsed === undefined) continue;
    replaceRegion(chat, state, region, state.expanded ? region.full : region.collapsed);
  }
}

/** When the terminal's width changes, the regions drawn for a width are drawn again (the last first). */
function redrawOnWidthChange(chat: ChatLog, state: ScreenState): void {
  chat.onWidthChange((width) => {
    for (const region of [...state.regions].reverse()) {
      if (region.draw) replaceRegion(chat, state, region, region.draw(width));
    }
  });
}

/** `/clear`: empties the conversation, forgets its regions, and clears the terminal and its scrollback. */
function clearScreen(parts: ScreenParts, state: ScreenState): void {
  parts.chat.clear();
  state.regions = [];
  state.expanded = false;
  // Scrollback too: what /clear leaves behind is a new conversation on an empty terminal.
  parts.terminal.write("\x1b[2J\x1b[3J\x1b[H");
  parts.tui.requestRender(true);
}

/** Ctrl-R's search of the prompt history, shown on its own line above the editor. */
function historySearch(parts: ScreenParts, options: ScreenOptions): HistorySearch {
  const { editor, searchLine, render } = parts;
  return new HistorySearch({
    prompts: () => options.history.prompts,
    getText: () => editor.getText(),
    setText: (text) => editor.setText(text),
    show: (line) => {
      searchLine.setText(line === "" ? "" : options.style.dim(line));
      render();
    },
  });
}

/**
 * The keys the screen takes before the editor or a dialog: the history search's, Shift-Tab, Ctrl-C, Ctrl-O, Esc
 * (and Esc Esc) and Ctrl-D (ends the input at an empty editor, or under a dialog).
 */
function listenForKeys(
  parts: ScreenParts,
  search: HistorySearch,
  state: ScreenState,
  closeInput: () => void,
): void {
  const { tui, chat, editor, render } = parts;
  tui.addInputListener((data) => {
    if (!state.dialog && search.handle(data)) {
      render();
      return { consume: true };
    }
    if (!state.dialog && matchesKey(data, "shift+tab")) {
      state.keys.cycleMode?.();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+c")) {
      state.keys.interrupt();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+o")) {
      // Shows the last output shown in part whole, and in part again on the next press.
      toggleExpanded(chat, state);
      return { consume: true };
    }
    if (state.dialog) {
      if (matchesKey(data, "ctrl+d")) {
        closeInput();
        return { consume: true };
      }
      return undefined;
    }
    // Two Esc presses that arrive as one chunk (a fast double press) are two presses, not Alt-Esc.
    if (data === "\x1b\x1b" && !editor.isShowingAutocomplete()) {
      state.keys.escape();
      state.keys.escape();
      return { consume: true };
    }
    if (matchesKey(data, "escape") && !editor.isShowingAutocomplete()) {
      state.keys.escape();
      return { consume: true };
    }
    if (matchesKey(data, "ctrl+d") && editor.getText() === "") {
      closeInput();
      return { consume: true };
    }
    return undefined;
  });
}

/** A dialog shown in place of the editor: its answer, and a way to withdraw it. */
export type Dialog<A> = Component & { answer: Promise<A>; cancel(): void; handleInput(data: string): void };

/** Shows questions and pickers in place of the editor, one at a time, until each is answered (or withdrawn). */
function dialogShower(
  parts: ScreenParts,
  style: Style,
  state: ScreenState,
): Pick<Screen, "ask" | "pick" | "show"> {
  const { tui, slot, editor, indicator, render } = parts;
  let questions: Promise<unknown> = Promise.resolve();
  const showDialog = async <A>(make: () => Dialog<A>, none: A, signal?: AbortSignal): Promise<A> => {
    if (signal?.aborted || state.closed) return none;
    const shown = make();
    const onAbort = () => shown.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    const onClose = () => shown.cancel();
    state.closeListeners.push(onClose);
    state.dialog = shown;
    indicator.hold("Waiting for your answer");
    slot.clear();
    slot.addChild(shown);
    tui.setFocus(shown);
    render();
    try {
      return await shown.answer;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      state.closeListeners.splice(state.closeListeners.indexOf(onClose), 1);
      state.dialog = undefined;
      indicator.hold(undefined);
      slot.clear();
      slot.addChild(editor);
      tui.setFocus(editor);
      render();
    }
  };
  /** Shows the dialog once every one asked before it is answered. */
  const inTurn = <A>(make: () => Dialog<A>, none: A, signal?: AbortSignal): Promise<A> => {
    const answer = questions.then(() => showDialog(make, none, signal));
    questions = answer.catch(() => undefined);
    return answer;
  };
  return {
    ask: (question, signal) =>
      inTurn(() => createQuestionDialog(question, { style, onChange: render }), question.escape, signal),
    pick: (title, items, none) =>
      inTurn(() => createListPicker(title, items, none, { style, onChange: render }), none),
    show: (make, none, signal) => inTurn(() => make(render), none, signal),
  };
}

/**
 * `render`, at most every STREAM_FRAME_MS: a streaming block's delta every few milliseconds need not be a frame
 * each (fewer, larger steps; the bytes sent to the terminal fall with them).
 */
function frameLimited(render: () => void): () => void {
  let refreshTimer: NodeJS.Timeout | undefined;
  return () => {
    if (refreshTimer) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = undefined;
      render();
    }, STREAM_FRAME_MS);
  };
}

/** Draws the last frame (the conversation, without the editor and the status lines) and restores the terminal. */
function stopScreen(parts: ScreenParts, stdout: TerminalOutput, restore: () => void): void {
  const { tui, indicator, slot, label, live, footer } = parts;
  indicator.stop();
  // The last frame without the editor and the status line: the conversation is what stays on the terminal.
  slot.clear();
  label.setText("");
  live.setText("");
  footer.line = "";
  // Drawn now, not on the next tick as `requestRender` would: `tui.stop()` comes first otherwise, and the
  // editor would stay on the terminal after mitsu has left. (pi-tui has no public synchronous render.)
  const internals = tui as unknown as { doRender(): void; previousLines: string[] };
  internals.doRender();
  process.removeListener("exit", restore);
  const empty = internals.previousLines.length === 0;
  tui.stop();
  // pi-tui leaves the first row of a frame that shrinks to nothing (the editor's top border when mitsu stops
  // before the conversation starts): cleared, so that an error printed next starts on a clean line.
  if (empty) stdout.write("\r\x1b[J");
}

/** A part of the conversation drawn again: expanded (Ctrl-O) or at a new width. */
interface Region {
  from: number;
  to: number;
  collapsed?: string;
  full?: string;
  draw?: (width: number) => string;
}

/** Regions kept at most (the oldest are forgotten: their text stays as it was drawn). */
const MAX_REGIONS = 500;

/** How often a streaming block is drawn again, at most. */
const STREAM_FRAME_MS = 50;

/** A run of one character each wrapped in the same style (`ESC[2m─ESC[22m…`), as one styled run. */
const STYLED_RUN = /(\x1b\[[\d;]*m)([^\x1b])(\x1b\[[\d;]*m)(?:\1\2\3)+/g;

export function joinStyledRuns(line: string): string {
  if (!line.includes("\x1b[")) return line;
  return line.replace(STYLED_RUN, (run: string, open: string, char: string, close: string) => {
    const count = run.length / (open.length + char.length + close.length);
    return `${open}${char.repeat(count)}${close}`;
  });
}

/** Lines of a text as `ChatLog.replace` counts them (a last "\n" ends a line, it does not start one). */
function lineCount(text: string): number {
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n").length;
}

/** The dim status line at the bottom of the screen. */
class FooterLine implements Component {
  line = "";
  constructor(private readonly style: Style) {}
  invalidate(): void {}
  render(width: number): string[] {
    return this.line === "" ? [] : [truncateToWidth(this.style.dim(this.line), width)];
  }
}
