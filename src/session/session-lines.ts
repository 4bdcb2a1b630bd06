import { closeSync, openSync, readSync } from "node:fs";

/** Where one line of a session file is, and what kind of line its first bytes say it is. */
export interface LineSpan {
  start: number;
  /** The end of the line, its newline excluded. */
  end: number;
  kind: LineKind;
}

/**
 * The kinds a line's first bytes can tell, as mitsu writes them (`JSON.stringify` keeps the key order the line
 * was built in); "other" for anything else, a line to parse to know.
 */
export type LineKind =
  | "compaction"
  | "rewind"
  | "user-message"
  | "assistant-message"
  | "tool-result"
  | "tool-start"
  | "other";

const PREFIXES: Array<[Buffer, LineKind]> = [
  [Buffer.from('{"type":"compaction",'), "compaction"],
  [Buffer.from('{"type":"rewind",'), "rewind"],
  [Buffer.from('{"type":"message","message":{"role":"user",'), "user-message"],
  [Buffer.from('{"type":"message","message":{"role":"assistant",'), "assistant-message"],
  [Buffer.from('{"type":"tool-result",'), "tool-result"],
  [Buffer.from('{"type":"tool-start",'), "tool-start"],
];
const LONGEST = Math.max(...PREFIXES.map(([p]) => p.length));
const CHUNK = 1 << 20;

function kindOf(head: Buffer): LineKind {
  for (const [prefix, kind] of PREFIXES) if (head.subarray(0, prefix.length).equals(prefix)) return kind;
  return "other";
}

/** An open session file read line by line: the lines' places first (one pass, 1 MB at a time), then any line. */
export interface SessionLines {
  lines: LineSpan[];
  /** The file ends with a newline (its last line is complete). */
  endsClean: boolean;
  /** The text of a line. */
  text(line: LineSpan): string;
  close(): void;
}

/**
 * Opens a session file and finds its lines without holding it in memory: a 100 MB session is read through a
 * 1 MB buffer, and only the lines the caller asks for are decoded.
 */
export function openSessionLines(path: string): SessionLines {
  const fd = openSync(path, "r");
  try {
    const lines: LineSpan[] = [];
    const buffer = Buffer.allocUnsafe(CHUNK);
    let position = 0;
    let lineStart = 0;
    /** The first bytes of the current line, for its kind (a line may start at the end of a chunk). */
    let head = Buffer.alloc(0);
    let lastByte = -1;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, position);
      if (read === 0) break;
      let from = 0;
      for (;;) {
        const newline = buffer.indexOf(10, from);
        const stop = newline === -1 || newline >= read ? read : newline;
        if (head.length < LONGEST)
          head = Buffer.concat([head, buffer.subarray(from, Math.min(stop, from + LONGEST))]);
        if (stop === read) break;
        lines.push({ start: lineStart, end: position + newline, kind: kindOf(head) });
        lineStart = position + newline + 1;
        head = Buffer.alloc(0);
        from = newline + 1;
      }
      lastByte = buffer[read - 1] ?? -1;
      position += read;
    }
    const endsClean = position === 0 || lastByte === 10;
    if (lineStart < position) lines.push({ start: lineStart, end: position, kind: kindOf(head) });
    return {
      lines,
      endsClean,
      text(line) {
        const bytes = Buffer.allocUnsafe(line.end - line.start);
        let done = 0;
        while (done < bytes.length) {
          const n = readSync(fd, bytes, done, bytes.length - done, line.start + done);
          if (n === 0) break;
          done += n;
        }
        return bytes.toString("utf8", 0, done);
      },
      close: () => closeSync(fd),
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
