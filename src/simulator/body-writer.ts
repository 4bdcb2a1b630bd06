import type { ServerResponse } from "node:http";

/**
 * Writes a response body and applies a `disconnect` fault: once `disconnectAfterBytes` bytes of body have
 * been written, the socket is destroyed (after those bytes are flushed), as when a connection drops. With
 * `fault: "stall"` the socket is left open instead and nothing more is written (a stalled upstream).
 */
export class BodyWriter {
  private written = 0;
  private dropped = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly disconnectAfterBytes: number | undefined,
    private readonly fault: "disconnect" | "stall" = "disconnect",
  ) {}

  /** True once the body can take no more bytes (fault applied, client gone, or ended). */
  get closed(): boolean {
    return this.dropped || this.res.destroyed || this.res.writableEnded;
  }

  /** Writes `text`; returns false if nothing more may be written. */
  write(text: string): boolean {
    if (this.closed) return false;
    const bytes = Buffer.from(text, "utf8");
    const limit = this.disconnectAfterBytes;
    if (limit !== undefined && this.written + bytes.length >= limit) {
      this.drop(bytes.subarray(0, Math.max(0, limit - this.written)));
      return false;
    }
    this.written += bytes.length;
    this.res.write(bytes);
    return true;
  }

  /** Ends the body; a disconnect fault that the body was too short to reach drops the socket here instead. */
  end(): void {
    if (this.closed) return;
    if (this.disconnectAfterBytes !== undefined) {
      this.drop(Buffer.alloc(0));
      return;
    }
    this.res.end();
  }

  private drop(last: Buffer): void {
    this.dropped = true;
    this.written += last.length;
    if (this.fault === "stall") {
      // Headers and the bytes so far go out; then silence, with the connection held open.
      if (last.length > 0) this.res.write(last);
      else this.res.flushHeaders();
      return;
    }
    const socket = this.res.socket;
    if (!socket) return;
    const destroy = () => socket.destroy();
    if (last.length > 0) this.res.write(last, destroy);
    else {
      // Headers go out with the first write; flush them so the client sees a response that then breaks.
      this.res.flushHeaders();
      socket.write(Buffer.alloc(0), destroy);
    }
  }
}
