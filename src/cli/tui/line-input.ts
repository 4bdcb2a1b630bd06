export interface ReadOptions {
  /** Resolves the read to undefined when aborted (a question the interrupted run no longer needs). */
  signal?: AbortSignal;
  /**
   * Only a line typed after the prompt is shown, not one typed ahead (a permission question must not take
   * the next prompt the user typed while the model was still streaming).
   */
  fresh?: boolean;
}

/**
 * The terminal's lines, for one reader at a time (the interactive screen's editor, see `tui/screen.ts`): lines
 * typed while nobody reads (during a run) wait for the next prompt, as typed.
 */
export interface LineInput {
  /** Shows `prompt` and resolves to the next line; undefined once input has ended (Ctrl-D) or on abort. */
  read(prompt: string, options?: ReadOptions): Promise<string | undefined>;
  /** True once the input has ended (Ctrl-D, end of stream, `close()`). */
  readonly closed: boolean;
  /** The text typed so far on the current line. */
  readonly partialLine: string;
  /** Deletes the text typed on the current line (Ctrl-C at a prompt with text on it). */
  clearLine(): void;
  /** Ctrl-C: readline turns it into this event (the terminal is in raw mode, so no signal reaches the process). */
  onInterrupt(handler: () => void): void;
  close(): void;
}
