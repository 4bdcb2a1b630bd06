import type { BodyWriter } from "./body-writer.js";

/**
 * Writes pre-framed SSE events for the OpenAI and Gemini protocols and applies an `error-event` fault: once
 * `errorAfterEvents` events were written, the next one is replaced by the protocol's error frames
 * (`errorFrames()`, called then, so it can number them) and the stream ends. A turn with fewer events gets the
 * error in place of its trailer (OpenAI Chat's `[DONE]`).
 */
export class SseWriter {
  private count = 0;

  constructor(
    private readonly body: BodyWriter,
    private readonly errorAfterEvents: number | undefined,
    private readonly errorFrames: () => string,
  ) {}

  /** Events written so far (Responses numbers its events with it). */
  get events(): number {
    return this.count;
  }

  /** Sends one framed event; false when the stream is over (a fault fired, the client left). */
  send(frame: string): boolean {
    if (this.body.closed) return false;
    if (this.errorAfterEvents !== undefined && this.count >= this.errorAfterEvents) {
      this.fail();
      return false;
    }
    this.count++;
    return this.body.write(frame);
  }

  /** Ends the stream with `trailer`, or with the pending error fault instead. */
  finish(trailer = ""): void {
    if (this.body.closed) return;
    if (this.errorAfterEvents !== undefined) {
      this.fail();
      return;
    }
    if (trailer !== "") this.body.write(trailer);
    this.body.end();
  }

  private fail(): void {
    this.body.write(this.errorFrames());
    this.body.end();
  }
}
