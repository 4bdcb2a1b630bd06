import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { Style } from "../render/style.js";
import { showControls } from "../render/terminal-text.js";

/**
 * Prompts typed while a turn runs: shown under the working indicator, each as its first line, and sent in
 * order when the turn ends. Esc takes them back into the editor (see `take`).
 */
export class QueuedInput implements Component {
  private items: string[] = [];

  constructor(
    private readonly style: Style,
    private readonly onChange: () => void,
  ) {}

  get length(): number {
    return this.items.length;
  }

  push(text: string): void {
    this.items.push(text);
    this.onChange();
  }

  /** The next queued prompt, removed from the queue. */
  shift(): string | undefined {
    const next = this.items.shift();
    if (next !== undefined) this.onChange();
    return next;
  }

  /** Every queued prompt, removed from the queue (to edit them). */
  take(): string[] {
    const all = this.items;
    this.items = [];
    if (all.length > 0) this.onChange();
    return all;
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (this.items.length === 0) return [];
    const rows = this.items.map((item) => {
      const lines = item.split("\n");
      const more = lines.length > 1 ? this.style.dim(` (+${lines.length - 1} lines)`) : "";
      return truncateToWidth(`${this.style.dim("⏵ queued:")} ${showControls(lines[0] ?? "")}${more}`, width);
    });
    rows.push(truncateToWidth(this.style.dim("  sent when the turn ends · esc to edit"), width));
    return rows;
  }
}
