import { randomUUID } from "node:crypto";
import { terminalJson } from "../render/terminal-text.js";

/** A `control_request`'s body: its `subtype` and that subtype's fields. */
export type ControlBody = { subtype: string } & Record<string, unknown>;

/**
 * The writing half of Claude Code's control protocol over stdout: messages one JSON object a line,
 * `control_request`s to the app (`can_use_tool`, `hook_callback`, `mcp_message`) whose answers come back as
 * `control_response` lines on stdin, and the answers to the app's own requests.
 */
export interface ControlChannel {
  /** Writes one message line. */
  send(message: unknown): void;
  /**
   * Sends a control request and resolves with the app's `response` object; rejects with the app's error text,
   * when `signal` aborts (the app is told with `control_cancel_request`), or when the channel closes.
   */
  request(body: ControlBody, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** Answers the app's request `requestId` with success. */
  respond(requestId: string, response?: Record<string, unknown>): void;
  /** Answers the app's request `requestId` with an error. */
  respondError(requestId: string, error: string): void;
  /**
   * A `control_response` line from the app: settles the request it answers. False when no request of that id
   * is waiting (an answer to nothing, or a late one).
   */
  settle(response: { subtype?: unknown; request_id?: unknown; response?: unknown; error?: unknown }): boolean;
  /** Rejects every waiting request (the app went away). */
  close(reason: string): void;
}

export function createControlChannel(write: (line: string) => void): ControlChannel {
  const pending = new Map<
    string,
    { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  let closed: string | undefined;
  const send = (message: unknown) => write(`${terminalJson(message)}\n`);
  return {
    send,
    request(body, signal) {
      if (closed !== undefined) return Promise.reject(new Error(closed));
      if (signal?.aborted) return Promise.reject(new Error("The request was cancelled."));
      const requestId = randomUUID();
      return new Promise((resolve, reject) => {
        const onAbort = () => {
          pending.delete(requestId);
          send({ type: "control_cancel_request", request_id: requestId });
          reject(new Error("The request was cancelled."));
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        pending.set(requestId, {
          resolve: (value) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(value);
          },
          reject: (error) => {
            signal?.removeEventListener("abort", onAbort);
            reject(error);
          },
        });
        send({ type: "control_request", request_id: requestId, request: body });
      });
    },
    respond(requestId, response = {}) {
      send({ type: "control_response", response: { subtype: "success", request_id: requestId, response } });
    },
    respondError(requestId, error) {
      send({ type: "control_response", response: { subtype: "error", request_id: requestId, error } });
    },
    settle(response) {
      const id = typeof response.request_id === "string" ? response.request_id : undefined;
      const waiting = id === undefined ? undefined : pending.get(id);
      if (!waiting || id === undefined) return false;
      pending.delete(id);
      if (response.subtype === "success") {
        const body = response.response;
        waiting.resolve(typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {});
      } else {
        waiting.reject(
          new Error(typeof response.error === "string" ? response.error : "The app answered with an error."),
        );
      }
      return true;
    },
    close(reason) {
      closed = reason;
      for (const { reject } of pending.values()) reject(new Error(reason));
      pending.clear();
    },
  };
}
