import type { Tool } from "../loop/tool.js";
import type { SessionLog } from "../session/index.js";
import { CheckpointStore } from "./checkpoint-store.js";
import { withCheckpoints } from "./with-checkpoints.js";

/**
 * The checkpoints of the conversation: before Write or Edit changes a file, its content is saved under the
 * session's folder, keyed by the user prompt now running, so `/rewind` can put it back.
 */
export class PromptCheckpoints {
  /** The history index of the user prompt now running. */
  promptIndex: number | undefined;
  private store: CheckpointStore | undefined;

  constructor(
    private readonly log: () => SessionLog | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  /** The store of the session file now written to (none without a log). */
  current(): CheckpointStore | undefined {
    const log = this.log();
    if (!log) return undefined;
    const dir = log.path.replace(/\.jsonl$/, ".checkpoints");
    if (this.store?.dir !== dir) this.store = new CheckpointStore(dir, { warn: this.warn });
    return this.store;
  }

  /** The tools, with Write and Edit saving each file before they change it. */
  wrap(tools: readonly Tool<never>[], cwd: string): Tool<never>[] {
    return withCheckpoints(tools, cwd, (path) => {
      if (this.promptIndex !== undefined) this.current()?.save(this.promptIndex, path);
    });
  }
}
