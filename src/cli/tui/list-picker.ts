import { type Component, decodeKittyPrintable, matchesKey, truncateToWidth } from "@mariozechner/pi-tui";
import type { Style } from "../render/style.js";

/** One choice of a picker: what is shown (already safe for the terminal) and what it answers. */
export interface PickerItem<A> {
  label: string;
  /** Dim text after the label (age, turns, cost). */
  detail?: string;
  /** What typing searches, when not the label (plain text). */
  searchText?: string;
  value: A;
}

export interface ListPicker<A> extends Component {
  readonly answer: Promise<A>;
  cancel(): void;
  handleInput(data: string): void;
}

/** Rows of choices shown at most. */
const VISIBLE = 10;

/**
 * A searchable list in the editor's place (`/resume`, `mitsu -r`, `/model`): typing filters it (every word must
 * appear), ↑/↓ move, Enter picks, Esc answers `none`.
 */
export function createListPicker<A>(
  title: string,
  items: readonly PickerItem<A>[],
  none: A,
  options: { style: Style; onChange: () => void },
): ListPicker<A> {
  const { style, onChange } = options;
  let query = "";
  let selected = 0;
  let settle: (a: A) => void = () => {};
  let done = false;
  const answer = new Promise<A>((resolve) => {
    settle = (a) => {
      if (done) return;
      done = true;
      resolve(a);
    };
  });
  const filtered = () => {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    return items.filter((item) => {
      const text = (item.searchText ?? item.label).toLowerCase();
      return words.every((word) => text.includes(word));
    });
  };
  return {
    answer,
    cancel: () => settle(none),
    invalidate() {},
    handleInput(data) {
      if (done) return;
      const shown = filtered();
      if (matchesKey(data, "escape") || matchesKey(data, "ctrl+c")) settle(none);
      else if (matchesKey(data, "enter")) {
        const item = shown[selected];
        if (item) settle(item.value);
      } else if (matchesKey(data, "up")) selected = Math.max(0, selected - 1);
      else if (matchesKey(data, "down")) selected = Math.min(Math.max(0, shown.length - 1), selected + 1);
      else if (matchesKey(data, "backspace")) {
        query = query.slice(0, -1);
        selected = 0;
      } else {
        const text = decodeKittyPrintable(data) ?? data;
        if (text.length > 0 && !/[\x00-\x1f\x7f]/.test(text)) {
          query += text;
          selected = 0;
        }
      }
      onChange();
    },
    render(width) {
      const shown = filtered();
      const start = Math.max(0, Math.min(selected - Math.floor(VISIBLE / 2), shown.length - VISIBLE));
      const rows = shown.slice(start, start + VISIBLE).map((item, i) => {
        const on = start + i === selected;
        const line = `${on ? "❯" : " "} ${item.label}${item.detail ? `  ${style.dim(item.detail)}` : ""}`;
        return on ? style.cyan(line) : line;
      });
      const more = shown.length > VISIBLE ? [style.dim(`  (${shown.length} in all)`)] : [];
      return [
        "",
        style.bold(title),
        `search: ${query}${style.dim("▏")}`,
        ...(shown.length === 0 ? [style.dim("  no match")] : rows),
        ...more,
        style.dim("type to search · ↑/↓ move · Enter pick · Esc cancel"),
      ].map((row) => truncateToWidth(row, width));
    },
  };
}
