import type { ContentBlock } from "../../messages/index.js";
import type { ControlBody } from "./control-channel.js";

/** One line of the app's standard input, read. */
export type SdkInput =
  /** A user message: one prompt of the conversation. `uuid` is the app's id for it, when it gave one. */
  | { kind: "user"; content: string | ContentBlock[]; uuid?: string }
  | { kind: "control_request"; requestId: string; request: ControlBody }
  | { kind: "control_response"; response: Record<string, unknown> }
  | { kind: "control_cancel_request"; requestId: string }
  /** Nothing to do (`keep_alive`, an empty line). */
  | { kind: "none" }
  /** A line that cannot be used; `requestId` when it was a control request (it is answered with the error). */
  | { kind: "invalid"; error: string; requestId?: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads one line; never throws. */
export function readSdkInput(line: string): SdkInput {
  if (line.trim() === "") return { kind: "none" };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { kind: "invalid", error: `not JSON: ${(error as Error).message}` };
  }
  if (!isObject(value)) return { kind: "invalid", error: "a line must be a JSON object" };
  switch (value.type) {
    case "user":
      return userInput(value);
    case "control_request": {
      const requestId = typeof value.request_id === "string" ? value.request_id : undefined;
      if (requestId === undefined) return { kind: "invalid", error: "a control_request needs a request_id" };
      const request = value.request;
      if (!isObject(request) || typeof request.subtype !== "string")
        return { kind: "invalid", error: "a control_request needs request.subtype", requestId };
      return { kind: "control_request", requestId, request: request as ControlBody };
    }
    case "control_response":
      if (!isObject(value.response)) return { kind: "invalid", error: "a control_response needs a response" };
      return { kind: "control_response", response: value.response };
    case "control_cancel_request":
      return typeof value.request_id === "string"
        ? { kind: "control_cancel_request", requestId: value.request_id }
        : { kind: "invalid", error: "a control_cancel_request needs a request_id" };
    case "keep_alive":
      return { kind: "none" };
    default:
      return { kind: "invalid", error: `unknown message type ${JSON.stringify(value.type)}` };
  }
}

function userInput(value: Record<string, unknown>): SdkInput {
  const message = value.message;
  const uuid = typeof value.uuid === "string" ? { uuid: value.uuid } : {};
  if (!isObject(message)) return { kind: "invalid", error: "a user message needs message" };
  const content = message.content;
  if (typeof content === "string") return { kind: "user", content, ...uuid };
  if (Array.isArray(content) && content.length > 0 && content.every(isBlock)) {
    return { kind: "user", content: content as ContentBlock[], ...uuid };
  }
  return { kind: "invalid", error: "a user message needs message.content: a string or content blocks" };
}

/**
 * Text and image blocks are what a prompt may hold, each of the shape the providers take: a malformed image
 * (`source: {}`, `data: 12`) kept in the history failed every later request of the session.
 */
function isBlock(block: unknown): boolean {
  if (!isObject(block)) return false;
  if (block.type === "text") return typeof block.text === "string";
  if (block.type === "image") {
    const source = block.source;
    if (!isObject(source)) return false;
    if (source.type === "base64")
      return typeof source.media_type === "string" && typeof source.data === "string";
    return source.type === "url" && typeof source.url === "string";
  }
  return false;
}
