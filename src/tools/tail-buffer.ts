/**
 * The last `maxChars` characters of a stream of text, in memory proportional to `maxChars` whatever the stream's
 * length, and in time proportional to what is pushed (chunks are kept as they come and only dropped whole; the
 * string is built once, when asked for).
 */
export class TailBuffer {
  private chunks: string[] = [];
  private length = 0;

  constructor(private readonly maxChars: number) {}

  push(text: string): void {
    if (text.length === 0 || this.maxChars <= 0) return;
    if (text.length >= this.maxChars) {
      this.chunks = [text.slice(-this.maxChars)];
      this.length = this.maxChars;
      return;
    }
    this.chunks.push(text);
    this.length += text.length;
    // Drop whole chunks from the front while what remains still holds maxChars.
    let drop = 0;
    while (drop < this.chunks.length && this.length - (this.chunks[drop]?.length ?? 0) >= this.maxChars) {
      this.length -= this.chunks[drop]?.length ?? 0;
      drop++;
    }
    if (drop > 0) this.chunks.splice(0, drop);
  }

  /** Characters pushed since the start that are still held (at most a chunk more than `maxChars`). */
  get size(): number {
    return this.length;
  }

  toString(): string {
    const joined = this.chunks.join("");
    return joined.length > this.maxChars ? joined.slice(-this.maxChars) : joined;
  }
}
