import { matchesKey } from "@mariozechner/pi-tui";

/** What the search needs of the screen: the prompts to search, the editor's text, a line to say what it does. */
export interface HistorySearchHost {
  /** The prompts, oldest first. */
  prompts(): readonly string[];
  getText(): string;
  setText(text: string): void;
  /** The line above the editor ("" removes it). */
  show(line: string): void;
}

/**
 * Ctrl-R at the prompt, as in a shell: the typed letters search the prompts of this project, newest first; each
 * match is put in the editor as found. Ctrl-R again goes to the next older match; Enter, Tab or an arrow keeps the
 * match in the editor (to edit or send), Esc or Ctrl-G puts back what was there before.
 */
export class HistorySearch {
  private state: { query: string; skip: number; before: string } | undefined;

  constructor(private readonly host: HistorySearchHost) {}

  get active(): boolean {
    return this.state !== undefined;
  }

  /** Handles a key; true when the search took it. */
  handle(data: string): boolean {
    if (!this.state) {
      if (!matchesKey(data, "ctrl+r")) return false;
      this.state = { query: "", skip: 0, before: this.host.getText() };
      this.update();
      return true;
    }
    const state = this.state;
    if (matchesKey(data, "ctrl+r")) {
      state.skip++;
      if (!this.update()) state.skip--;
      this.update();
      return true;
    }
    if (matchesKey(data, "escape") || matchesKey(data, "ctrl+g") || matchesKey(data, "ctrl+c")) {
      this.host.setText(state.before);
      this.end();
      return true;
    }
    if (matchesKey(data, "backspace")) {
      state.query = state.query.slice(0, -1);
      state.skip = 0;
      this.update();
      return true;
    }
    if (matchesKey(data, "enter") || matchesKey(data, "tab") || data.startsWith("\x1b")) {
      this.end();
      return true;
    }
    if (data.length > 0 && !/[\x00-\x1f\x7f]/.test(data)) {
      state.query += data;
      state.skip = 0;
      this.update();
      return true;
    }
    return true;
  }

  /** Shows the match for the query (skipping `skip` newer ones); false when there is none. */
  private update(): boolean {
    const state = this.state!;
    const prompts = this.host.prompts();
    const query = state.query.toLowerCase();
    let seen = 0;
    let found: string | undefined;
    for (let i = prompts.length - 1; i >= 0; i--) {
      const prompt = prompts[i]!;
      if (!prompt.toLowerCase().includes(query)) continue;
      if (seen++ === state.skip) {
        found = prompt;
        break;
      }
    }
    if (found !== undefined) this.host.setText(found);
    const what = found === undefined ? (query === "" ? "" : " (no match)") : "";
    this.host.show(`search history: ${state.query}${what}  (ctrl+r older · enter keep · esc cancel)`);
    return found !== undefined;
  }

  private end(): void {
    this.state = undefined;
    this.host.show("");
  }
}
