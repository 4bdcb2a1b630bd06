import type { Exchange, SimContext } from "./sim-context.js";

/** How every protocol's stream renderer paces a turn and reports its progress. */
export interface StreamPacing {
  /** Characters per text (or thinking) delta. */
  textChunk: number;
  /** Characters per tool-input delta. */
  inputChunk: number;
  /** Milliseconds before each delta. */
  delayMs: number;
  /** Called when the generation of a block ended (before a buffered tool's input is released). */
  onGenerated: (block: number) => void;
}

/** The simulator's pacing options for one exchange; `onGenerated` marks `generation-end` on that request. */
export function streamPacing(ctx: SimContext, ex: Exchange): StreamPacing {
  const { options } = ctx;
  return {
    textChunk: options.textChunk,
    inputChunk: options.inputChunk,
    delayMs: options.delayMs,
    onGenerated: (block) => options.onMark({ kind: "generation-end", request: ex.index, block }),
  };
}
