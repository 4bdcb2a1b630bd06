import type { Interface } from "node:readline/promises";

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
 * The terminal's lines, for one reader at a time: the prompt loop and the permission questions share one
 * readline. Lines typed while nobody reads (during a run) wait for the next prompt, as typed.
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

export function createLineInput(rl: Interface): LineInput {
  const typedAhead: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;

  rl.on("line", (line: string) => {
    const deliver = waiting;
    waiting = undefined;
    if (deliver) deliver(line);
    else typedAhead.push(line);
  });
  rl.on("close", () => {
    closed = true;
    const deliver = waiting;
    waiting = undefined;
    deliver?.(undefined);
  });

  return {
    get closed() {
      return closed;
    },
    get partialLine() {
      return rl.line;
    },
    read(prompt, options = {}) {
      const { signal } = options;
      if (!options.fresh && typedAhead.length > 0) return Promise.resolve(typedAhead.shift());
      if (closed || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const finish = (line: string | undefined) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(line);
        };
        const onAbort = () => {
          if (waiting !== finish) return;
          waiting = undefined;
          finish(undefined);
        };
        waiting = finish;
        signal?.addEventListener("abort", onAbort, { once: true });
        rl.setPrompt(prompt);
        rl.prompt(true);
      });
    },
    clearLine() {
      // End of line, then delete to its start: readline redraws an empty prompt.
      rl.write(null, { ctrl: true, name: "e" });
      rl.write(null, { ctrl: true, name: "u" });
    },
    onInterrupt(handler) {
      rl.on("SIGINT", handler);
    },
    close() {
      if (!closed) rl.close();
    },
  };
}
