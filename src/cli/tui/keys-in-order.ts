import type { AutocompleteSuggestions, Editor } from "@mariozechner/pi-tui";
import type { PromptAutocomplete } from "./prompt-autocomplete.js";

/** The parts of pi-tui's Editor (0.73) that its completion runs on: private there, reached here on purpose. */
interface EditorInternals {
  state: { lines: string[]; cursorLine: number; cursorCol: number };
  lastAction: unknown;
  onChange?: (text: string) => void;
  tui: { requestRender(): void };
  requestAutocomplete(options: { force: boolean; explicitTab: boolean }): void;
  applyAutocompleteSuggestions(suggestions: AutocompleteSuggestions, state: "force" | "regular"): void;
  cancelAutocomplete(): void;
  pushUndoSnapshot(): void;
  setCursorCol(col: number): void;
}

/**
 * Makes `editor` apply each key to the text and completion list that the keys before it left, however fast
 * they come. pi-tui asks for suggestions asynchronously and keeps showing the last list meanwhile: keys that
 * arrive in one chunk (a fast typist, a loaded machine) met a list made for fewer letters, and Enter applied it
 * to the longer text (`/cl` + `ear⏎` sent `/clclear`). Here the suggestions that can be known at once (slash
 * command names, `@paths` once listed: `completion.suggestNow`) are set before the next key is read; a list
 * that still comes late (the first `@`, a path) is dropped when the text has moved on since it was asked for,
 * so a key never applies a list made for other text.
 */
export function applyKeysInOrder(editor: Editor, completion: PromptAutocomplete): void {
  const internals = editor as unknown as EditorInternals;
  const snapshot = () => {
    const { lines, cursorLine, cursorCol } = internals.state;
    return `${cursorLine}:${cursorCol}:${lines.join("\n")}`;
  };
  /** The text and cursor the list on show was made for. */
  let shownFor: string | undefined;

  const applySuggestions = internals.applyAutocompleteSuggestions.bind(editor);
  internals.applyAutocompleteSuggestions = (suggestions, state) => {
    applySuggestions(suggestions, state);
    shownFor = snapshot();
  };

  const requestLater = internals.requestAutocomplete.bind(editor);
  internals.requestAutocomplete = (options) => {
    const { lines, cursorLine, cursorCol } = internals.state;
    if (options.force && completion.shouldTriggerFileCompletion?.(lines, cursorLine, cursorCol) === false) {
      return requestLater(options);
    }
    const now = completion.suggestNow(lines, cursorLine, cursorCol, options.force);
    if (now === undefined) return requestLater(options);
    internals.cancelAutocomplete();
    if (now !== null && options.force && options.explicitTab && now.items.length === 1) {
      // Tab with one candidate completes it, as pi-tui does when its answer comes.
      const item = now.items[0];
      if (item) {
        internals.pushUndoSnapshot();
        internals.lastAction = null;
        const done = completion.applyCompletion(lines, cursorLine, cursorCol, item, now.prefix);
        internals.state.lines = done.lines;
        internals.state.cursorLine = done.cursorLine;
        internals.setCursorCol(done.cursorCol);
        internals.onChange?.(editor.getText());
      }
    } else if (now !== null) {
      internals.applyAutocompleteSuggestions(now, options.force ? "force" : "regular");
    }
    internals.tui.requestRender();
  };

  const handleInput = editor.handleInput.bind(editor);
  editor.handleInput = (data: string) => {
    if (editor.isShowingAutocomplete() && shownFor !== snapshot()) {
      internals.cancelAutocomplete();
      internals.tui.requestRender();
    }
    handleInput(data);
  };
}
