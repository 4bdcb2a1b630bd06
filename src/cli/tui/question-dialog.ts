import {
  type Component,
  decodeKittyPrintable,
  matchesKey,
  truncateToWidth,
  wrapTextWithAnsi,
} from "@mariozechner/pi-tui";
import type { Style } from "../render/style.js";

/** One answer a question offers. */
export interface QuestionOption<A> {
  /** The single key that picks it, shown before the label: "1", "2", "3". */
  key: string;
  /** More keys that pick it, case-insensitive: "y", "a", "n". */
  aliases?: readonly string[];
  /** What the answer means, in mitsu's words (not escaped: never put model or file text here unescaped). */
  label: string;
  /** A dim line under the label: the exact rule that "always" will save. Escaped by the builder. */
  detail?: string;
  answer: A;
}

/** A question for the user, shown in place of the editor until answered. */
export interface Question<A> {
  /** One bold line: "Bash command", "Edit file src/a.ts". */
  title: string;
  /**
   * What will happen, as lines for `width` columns (the diff, the command); a longer line wraps. Called on every
   * render, so it may depend on the width; every line it returns must already be safe for the terminal.
   */
  body?: (width: number) => string[];
  /** The question itself, under the body: "Do you want to proceed?". */
  prompt: string;
  /** In the order shown; the first is selected at the start. */
  options: readonly QuestionOption<A>[];
  /** The answer of Esc, and of `cancel()`: "no" for a permission, "skip" for an MCP server. */
  escape: A;
  /** The hint line under the options; default "Esc to cancel". */
  hint?: string;
}

/**
 * A question as a pi-tui component. Mount it where the editor was, give it the focus (it reads every key through
 * `handleInput`), await `answer`, then unmount it and put the editor back.
 *
 * Keys: an option's `key` or alias picks it at once (single keys, no Enter); ↑/↓ (also k/j, Tab/Shift-Tab) move the
 * selection and Enter picks the selected one; Esc answers `question.escape`. Keys after the answer are ignored.
 */
export interface QuestionDialog<A> extends Component {
  /** Settles once: with the option picked, or with `question.escape` on Esc or `cancel()`. Never rejects. */
  readonly answer: Promise<A>;
  /** True once answered. */
  readonly done: boolean;
  /** The option selected now (↑/↓ move it). */
  readonly selected: number;
  /**
   * Settles `answer` with `answer` (default `question.escape`): the run was interrupted, the question is no
   * longer needed. Nothing happens once answered.
   */
  cancel(answer?: A): void;
  render(width: number): string[];
  handleInput(data: string): void;
}

export interface QuestionDialogOptions {
  style: Style;
  /** Called after a key changed what `render` returns (the TUI's `requestRender`). */
  onChange?: () => void;
}

/** Builds the component; see `QuestionDialog`. */
export function createQuestionDialog<A>(
  question: Question<A>,
  options: QuestionDialogOptions,
): QuestionDialog<A> {
  const { style, onChange } = options;
  let selected = 0;
  let done = false;
  let settle: (answer: A) => void = () => {};
  const answer = new Promise<A>((resolve) => {
    settle = resolve;
  });
  const finish = (value: A) => {
    if (done) return;
    done = true;
    settle(value);
    onChange?.();
  };
  const move = (by: number) => {
    const count = question.options.length;
    if (count === 0) return;
    selected = (selected + by + count) % count;
    onChange?.();
  };

  const dialog: QuestionDialog<A> = {
    answer,
    get done() {
      return done;
    },
    get selected() {
      return selected;
    },
    cancel(answer?: A) {
      finish(answer === undefined ? question.escape : answer);
    },
    invalidate() {},
    handleInput(data: string) {
      if (done) return;
      if (matchesKey(data, "escape")) return finish(question.escape);
      if (matchesKey(data, "enter")) {
        const option = question.options[selected];
        if (option) finish(option.answer);
        return;
      }
      if (matchesKey(data, "up") || matchesKey(data, "shift+tab")) return move(-1);
      if (matchesKey(data, "down") || matchesKey(data, "tab")) return move(1);
      const typed = (decodeKittyPrintable(data) ?? data).toLowerCase();
      if (typed.length !== 1) return;
      const picked = question.options.find(
        (option) =>
          option.key.toLowerCase() === typed || option.aliases?.some((a) => a.toLowerCase() === typed),
      );
      if (picked) return finish(picked.answer);
      if (typed === "k") return move(-1);
      if (typed === "j") return move(1);
    },
    render(width: number): string[] {
      const inner = Math.max(1, width - 2);
      const clip = (line: string) => truncateToWidth(line, width);
      /** `text` wrapped to `at` columns; a new line in it (a rule for a multi-line command) shows as ⏎. */
      const wrap = (text: string, at: number) => wrapTextWithAnsi(oneLine(text), Math.max(1, at));
      const lines: string[] = [clip(style.dim("─".repeat(width)))];
      for (const line of wrap(question.title, inner)) lines.push(clip(` ${style.bold(line)}`));
      const body = (question.body?.(inner) ?? []).flatMap((line) => line.split(/\r?\n/));
      // Lines wider than the screen wrap (a long command must be seen whole); a diff comes already cut.
      const wrapped = body.flatMap((line) => (line === "" ? [""] : wrapTextWithAnsi(line, inner)));
      if (wrapped.length > 0) lines.push("", ...wrapped.map((line) => (line === "" ? "" : clip(` ${line}`))));
      lines.push("");
      for (const line of wrap(question.prompt, inner)) lines.push(clip(` ${line}`));
      question.options.forEach((option, i) => {
        const current = i === selected && !done;
        const pointer = current ? style.cyan("❯") : " ";
        const head = `${option.key}. `;
        // The whole label is shown: "always" names the exact rule it saves, however long.
        wrap(option.label, inner - 2 - head.length).forEach((line, row) => {
          const text = row === 0 ? `${head}${line}` : `${" ".repeat(head.length)}${line}`;
          lines.push(clip(` ${row === 0 ? pointer : " "} ${current ? style.cyan(text) : text}`));
        });
        if (option.detail) {
          for (const line of wrap(option.detail, inner - 5)) lines.push(clip(`      ${style.dim(line)}`));
        }
      });
      lines.push("", clip(` ${style.dim(oneLine(question.hint ?? "Esc to cancel"))}`));
      return lines;
    },
  };
  return dialog;
}

/** A new line inside one line of the dialog would tear the screen's drawing: it shows as ⏎. */
function oneLine(text: string): string {
  return text.replace(/\s*\r?\n\s*/g, " ⏎ ");
}
