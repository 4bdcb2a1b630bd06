/**
 * An unbounded single-consumer queue: producers `push` (from concurrent tasks), one `for await` drains it in
 * push order and ends after `close`. It lets concurrent tool calls stream their events through one generator.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  #items: T[] = [];
  #head = 0;
  #closed = false;
  #wake: (() => void) | undefined;

  push(item: T): void {
    if (this.#closed) throw new Error("AsyncQueue: push after close");
    this.#items.push(item);
    this.#signal();
  }

  close(): void {
    this.#closed = true;
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.#head < this.#items.length) {
        const item = this.#items[this.#head] as T;
        this.#items[this.#head++] = undefined as T; // let the consumed item be collected
        if (this.#head === this.#items.length) {
          this.#items = [];
          this.#head = 0;
        }
        yield item;
      } else if (this.#closed) {
        return;
      } else {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    }
  }
}
