/**
 * Passes text to `report` at most once per `intervalMs` (the first piece at once), joined, so a command that
 * prints a flood produces a bounded stream of progress events rather than one per pipe read. At most `maxChars`
 * wait between reports: past that the oldest waiting text is dropped and a marker line says how much, since a
 * live view only needs to keep up. `flush` reports what waits; `close` flushes and stops.
 */
export class ThrottledProgress {
  private pending: string[] = [];
  private pendingChars = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private last = 0;
  private closed = false;

  constructor(
    private readonly report: (text: string) => void,
    private readonly intervalMs = 100,
    private readonly maxChars = 16 * 1024,
  ) {}

  push(text: string): void {
    if (this.closed || text === "") return;
    this.pending.push(text);
    this.pendingChars += text.length;
    while (this.pendingChars > this.maxChars && this.pending.length > 1) {
      const first = this.pending.shift() ?? "";
      this.pendingChars -= first.length;
      this.dropped += first.length;
    }
    if (this.pendingChars > this.maxChars) {
      const only = this.pending[0] ?? "";
      this.dropped += only.length - this.maxChars;
      this.pending = [only.slice(-this.maxChars)];
      this.pendingChars = this.maxChars;
    }
    const wait = this.last + this.intervalMs - Date.now();
    if (wait <= 0) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush();
      }, wait);
      this.timer.unref?.();
    }
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pendingChars === 0) return;
    const skipped = this.dropped > 0 ? `\n[… ${this.dropped} characters of output not shown live …]\n` : "";
    const text = skipped + this.pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    this.dropped = 0;
    this.last = Date.now();
    this.report(text);
  }

  close(): void {
    this.flush();
    this.closed = true;
  }
}
