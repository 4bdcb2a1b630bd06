import { type Component, truncateToWidth } from "@mariozechner/pi-tui";
import type { Style } from "../render/style.js";
import { compactCount } from "./turn-footer.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/**
 * The line under the conversation while a turn runs: a spinner, what mitsu is doing, how long it has been
 * running, the tokens the model has written so far and the keys that stop it —
 * `⠹ Working… (12s · ↓ 1.2k tokens · esc to interrupt)`. It animates itself (`start`/`stop`); the timer does
 * not keep the process alive.
 */
export class WorkingIndicator implements Component {
  private frame = 0;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = Date.now();
  /** Output tokens of the model calls that ended, and an estimate (4 characters a token) of the one streaming. */
  private doneTokens = 0;
  private streamedChars = 0;
  private label = "Working";

  constructor(
    private readonly style: Style,
    private readonly requestRender: () => void,
  ) {}

  get running(): boolean {
    return this.timer !== undefined;
  }

  start(label = "Working"): void {
    this.stop();
    this.label = label;
    this.startedAt = Date.now();
    this.doneTokens = 0;
    this.streamedChars = 0;
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.requestRender();
    }, 100);
    this.timer.unref();
    this.requestRender();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * While a question waits, its label stays ("Waiting for your answer"): what the run reports meanwhile (a call
   * starting) is shown once the question is answered. `hold(undefined)` ends it.
   */
  hold(label: string | undefined): void {
    if (label === undefined) {
      const after = this.held;
      this.held = undefined;
      if (after !== undefined) this.setLabel(after);
      return;
    }
    this.held = this.held ?? this.label;
    this.label = label;
    this.requestRender();
  }
  private held: string | undefined;

  /** What the turn is doing now ("Thinking", "Running Bash"). */
  setLabel(label: string): void {
    if (this.held !== undefined) {
      this.held = label;
      return;
    }
    this.label = label;
  }

  get currentLabel(): string {
    return this.label;
  }

  /** Text the model streamed (text, thinking or a tool's input). */
  addStreamed(chars: number): void {
    this.streamedChars += chars;
  }

  /** A model call ended with this many output tokens: the estimate of its stream is replaced by the count. */
  addCallTokens(outputTokens: number): void {
    this.doneTokens += outputTokens;
    this.streamedChars = 0;
  }

  get tokens(): number {
    return this.doneTokens + Math.ceil(this.streamedChars / 4);
  }

  invalidate(): void {}

  render(width: number): string[] {
    if (!this.timer) return [];
    const seconds = Math.floor((Date.now() - this.startedAt) / 1000);
    const parts = [`${seconds}s`];
    if (this.tokens > 0) parts.push(`↓ ${compactCount(this.tokens)} tokens`);
    parts.push("esc to interrupt");
    const line = `${this.style.cyan(FRAMES[this.frame] ?? "·")} ${this.label}… ${this.style.dim(`(${parts.join(" · ")})`)}`;
    return ["", truncateToWidth(line, width)];
  }
}
