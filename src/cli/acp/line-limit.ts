/**
 * Keeps lines of at most `maxBytes` from a newline-delimited stream. A longer line is dropped as it arrives (never
 * held in memory) and `onTooLarge` is told, with the request id its first bytes name when they name one, so the
 * client gets an error for that request instead of waiting forever; the lines after it go on. (The SDK's own
 * limit, larger, would close the connection.)
 */
export function limitLines(
  input: ReadableStream<Uint8Array>,
  maxBytes: number,
  onTooLarge: (id: string | number | null) => void,
): ReadableStream<Uint8Array> {
  /** The line so far, held until its newline (at most `maxBytes`): a line is passed on whole or not at all. */
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let dropping = false;
  /** The first characters of the line being dropped, where its id may be. */
  let head = "";
  const decoder = new TextDecoder();
  const drop = () => {
    for (const piece of pending)
      if (head.length < HEAD_CHARS) head += decoder.decode(piece.subarray(0, HEAD_CHARS));
    pending = [];
    pendingBytes = 0;
    dropping = true;
  };
  return input.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        let start = 0;
        while (start < chunk.length) {
          const newline = chunk.indexOf(0x0a, start);
          const end = newline === -1 ? chunk.length : newline + 1;
          const piece = chunk.subarray(start, end);
          start = end;
          if (!dropping && pendingBytes + piece.length > maxBytes) drop();
          if (dropping) {
            if (head.length < HEAD_CHARS) head += decoder.decode(piece.subarray(0, HEAD_CHARS));
            if (newline === -1) continue;
            onTooLarge(requestId(head));
            dropping = false;
            head = "";
            continue;
          }
          pending.push(piece);
          pendingBytes += piece.length;
          if (newline === -1) continue;
          for (const part of pending) controller.enqueue(part);
          pending = [];
          pendingBytes = 0;
        }
      },
      flush(controller) {
        if (dropping) onTooLarge(requestId(head));
        else for (const part of pending) controller.enqueue(part);
      },
    }),
  );
}

const HEAD_CHARS = 512;

/** The `id` of a JSON-RPC request from its first characters (before `params`, as clients write them). */
function requestId(head: string): string | number | null {
  const match = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!match?.[1]) return null;
  try {
    return JSON.parse(match[1]) as string | number;
  } catch {
    return null;
  }
}
