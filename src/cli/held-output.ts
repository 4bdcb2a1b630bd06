/**
 * The run's output at a terminal that also asks questions: while a permission question waits for its answer,
 * what the run prints (a parallel call's result, a notice) is held and printed after the answer, so it never
 * lands on the question's line or scrolls the question away.
 */
export interface HeldOutput {
  /** Writes now, or once the question on screen is answered. */
  write(text: string): void;
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
  const print = (text: string) => {
    if (text.length === 0) return;
    write(text);
    atLineStart = text.endsWith("\n");
  };
  return {
    write(text) {
      if (held) held.push(text);
      else print(text);
    },
    hold() {
      held ??= [];
    },
    release() {
      const texts = held ?? [];
      held = undefined;
      print(texts.join(""));
    },
    get atLineStart() {
      return atLineStart;
    },
  };
}
