import type { BodyWriter } from "../body-writer.js";
import { defaultErrorMessage } from "./error-body.js";

/**
 * Writes Anthropic SSE frames (`event: <type>` + `data: <json>` + blank line) and applies an `error-event`
 * fault: once `afterEvents` events were written, the next one is replaced by an `event: error` frame and the
 * stream ends, with no message_delta or message_stop.
 */
export class AnthropicEventWriter {
  private count = 0;

  constructor(
    private readonly body: BodyWriter,
    private readonly errorFault: { afterEvents: number; errorType?: string } | undefined,
    private readonly requestId: string,
  ) {}

  /** Sends one event; false when the stream is over (a fault fired, the client left). */
  send(type: string, data: unknown): boolean {
    if (this.body.closed) return false;
    if (this.errorFault && this.count >= this.errorFault.afterEvents) {
      this.sendError();
      return false;
    }
    this.count++;
    return this.body.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends the stream; a pending error fault (the turn had fewer events) fires here. */
  finish(): void {
    if (this.errorFault && !this.body.closed) this.sendError();
    this.body.end();
  }

  private sendError(): void {
    const type = this.errorFault?.errorType ?? "overloaded_error";
    const frame = {
      type: "error",
      error: { type, message: defaultErrorMessage(type) },
      request_id: this.requestId,
    };
    this.body.write(`event: error\ndata: ${JSON.stringify(frame)}\n\n`);
    this.body.end();
  }
}
