import { ERASE_LINE } from "./status-line.js";

/**
 * The run's output at a terminal that also asks questions: while a permission question waits for its answer,
 * what the run prints (a parallel call's result, a notice) is held and printed after the answer, so it never
 * lands on the question's line or scrolls the question away.
 */
export interface HeldOutput {
  /** Writes now, or once the question on screen is answered. */
  write(text: string): void;
  /**
   * Draws the status line (a running command's last output line; the text renderer's `writeStatus`) in place
   * of the one on screen; "" erases it. `hold` takes it off the screen, so a question never sits under a
   * stale line; while held only the latest is kept, and it is drawn again after what was held.
   */
  status(line: string): void;
  /** Holds writes from now on (a question is about to be shown). */
  hold(): void;
  /** Prints what was held, in order, and writes directly again. */
  release(): void;
  /** Whether the last text printed ended a line (a question then needs no newline first). */
  readonly atLineStart: boolean;
}

export function createHeldOutput(write: (text: string) => void): HeldOutput {
  let held: string[] | undefined;
  let atLineStart = true;
  /** The status line as the run last set it, and whether it is on screen. */
  let status = "";
  let statusShown = false;
  const print = (text: string) => {
    if (text.length === 0) return;
    write(text);
    atLineStart = text.endsWith("\n");
  };
  // A status line is drawn at a line's start and erasing it returns there: `atLineStart` does not change.
  const drawStatus = () => {
    if (status === "" && !statusShown) return;
    write(`${ERASE_LINE}${status}`);
    statusShown = status !== "";
  };
  return {
    write(text) {
      if (held) held.push(text);
      else print(text);
    },
    status(line) {
      status = line;
      if (!held) drawStatus();
    },
    hold() {
      if (held) return;
      held = [];
      if (statusShown) {
        write(ERASE_LINE);
        statusShown = false;
      }
    },
    release() {
      const texts = held ?? [];
      held = undefined;
      print(texts.join(""));
      if (status !== "") drawStatus();
    },
    get atLineStart() {
      return atLineStart;
    },
  };
}
