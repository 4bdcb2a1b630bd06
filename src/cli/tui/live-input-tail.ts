import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { Style } from "../render/style.js";
import { showControls, stripControls } from "../render/terminal-text.js";

/** Lines of a streamed value shown at most while it arrives. */
const SHOWN_LINES = 6;

/**
 * A tool call's input while the model writes it (a Write's content, an Edit's new text), drawn after the
 * conversation and gone when the input is complete: the permission question and the result then show it once,
 * instead of the raw input staying in the transcript above them. Its last few lines and a count.
 */
export class LiveInputTail implements Component {
  private path = "";
  private text = "";

  constructor(
    private readonly name: string,
    private readonly style: Style,
  ) {}

  push(strings: ReadonlyArray<{ path: readonly (string | number)[]; text: string }>): void {
    for (const chunk of strings) {
      const path = chunk.path.join(".");
      if (path !== this.path) {
        this.path = path;
        this.text = "";
      }
      this.text += chunk.text;
    }
  }

  invalidate(): void {}

  render(width: number): string[] {
    const lines = stripControls(this.text).split("\n");
    const head = `${this.style.cyan("●")} ${this.style.bold(showControls(this.name))}${
      this.path ? this.style.dim(` · ${showControls(this.path)} · ${lines.length} lines`) : ""
    }`;
    const shown = lines.slice(-SHOWN_LINES).map((line) => this.style.dim(`    ${line.replace(/\t/g, "  ")}`));
    return [head, ...shown].map((row) => truncateToWidth(row, width));
  }
}
