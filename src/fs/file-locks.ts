/**
 * One writer per file: `run(key, task)` runs tasks with the same key one after another, in the order they
 * asked, and tasks with different keys concurrently. Keys are real paths, so two names of one file (a link,
 * `./a` and `a`) share a lock. A task that fails does not block the next one. An idle key holds no memory.
 */
export class FileLocks {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release = () => {};
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      // Only the last task in line removes the key; a later one has already replaced the tail.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with a task running or waiting (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}

/**
 * The locks every file-writing tool of this process shares by default, so that Write and Edit, and the tools
 * of a sub-agent, never write the same file at once even when they were created separately.
 */
export const sharedFileLocks = new FileLocks();
