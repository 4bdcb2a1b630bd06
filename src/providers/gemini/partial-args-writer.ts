/** One piece of a streamed Gemini function-call argument (`functionCall.partialArgs[]`). */
export interface PartialArg {
  /** RFC 9535 JSON Path of the value, e.g. `$.edits[0].new_string` or `$['a key']`. */
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  /** More pieces of the same path follow (a string value continues in the next piece). */
  willContinue?: boolean;
}

type Segment = string | number;

interface Container {
  kind: "object" | "array";
  /** The segment under which this container sits in its parent (none for the root). */
  segment: Segment | undefined;
  /** Members written so far (for the commas). */
  count: number;
}

/**
 * Turns Gemini's streamed `partialArgs` (Vertex `streamFunctionCallArguments`) into JSON text fragments, so the
 * call's input flows through the same `JsonAccumulator` as every other provider's. Pieces arrive in document
 * order; a string value may come in several pieces (`willContinue`), which are appended inside one JSON string.
 * Containers along each path are opened and closed as the paths move on. O(piece length) per piece.
 *
 * Contract: `write` for each piece in order, then `finish` once, which closes whatever is open; the concatenated
 * fragments are one JSON object (`{}` when no piece came).
 */
export class PartialArgsWriter {
  private readonly stack: Container[] = [];
  /** The path of a string value still open (its closing quote not yet written). */
  private openString: Segment[] | undefined;

  write(arg: PartialArg): string {
    const path = parseJsonPath(arg.jsonPath ?? "$");
    let out = "";
    if (this.openString) {
      if (samePath(this.openString, path) && arg.stringValue !== undefined) {
        out += escapeString(arg.stringValue);
        if (!arg.willContinue) {
          out += '"';
          this.openString = undefined;
        }
        return out;
      }
      // The previous string ended without a final piece.
      out += '"';
      this.openString = undefined;
    }
    if (path.length === 0) return out; // A value for the root itself: the root is always an object.
    out += this.moveTo(path.slice(0, -1), path[path.length - 1]!);
    if (arg.stringValue !== undefined) {
      out += `"${escapeString(arg.stringValue)}`;
      if (arg.willContinue) this.openString = path;
      else out += '"';
    } else if (arg.numberValue !== undefined) {
      out += Number.isFinite(arg.numberValue) ? JSON.stringify(arg.numberValue) : "null";
    } else if (arg.boolValue !== undefined) {
      out += arg.boolValue ? "true" : "false";
    } else {
      out += "null";
    }
    return out;
  }

  /** Closes an open string and every open container, the root object included. */
  finish(): string {
    let out = "";
    if (this.openString) {
      out += '"';
      this.openString = undefined;
    }
    if (this.stack.length === 0) return "{}";
    while (this.stack.length > 0) out += this.stack.pop()!.kind === "object" ? "}" : "]";
    return out;
  }

  /** Closes and opens containers so that the next member is `last` inside `parent`; writes its comma and key. */
  private moveTo(parent: Segment[], last: Segment): string {
    let out = "";
    if (this.stack.length === 0) {
      this.stack.push({ kind: "object", segment: undefined, count: 0 });
      out += "{";
    }
    let common = 0;
    while (
      common < parent.length &&
      common + 1 < this.stack.length &&
      this.stack[common + 1]!.segment === parent[common]
    ) {
      common++;
    }
    while (this.stack.length > common + 1) out += this.stack.pop()!.kind === "object" ? "}" : "]";
    for (let i = common; i < parent.length; i++) {
      const next = i + 1 < parent.length ? parent[i + 1]! : last;
      out += this.member(parent[i]!);
      const kind = typeof next === "number" ? "array" : "object";
      this.stack.push({ kind, segment: parent[i], count: 0 });
      out += kind === "object" ? "{" : "[";
    }
    return out + this.member(last);
  }

  /** A comma when needed, and the key in an object. */
  private member(segment: Segment): string {
    const top = this.stack[this.stack.length - 1]!;
    let out = top.count > 0 ? "," : "";
    top.count++;
    if (top.kind === "object") out += `${JSON.stringify(String(segment))}:`;
    return out;
  }
}

/** `$.a.b[0]['c d']` → `["a", "b", 0, "c d"]`. Throws on anything else, naming the path. */
export function parseJsonPath(path: string): Segment[] {
  if (!path.startsWith("$")) throw new Error(`Unsupported JSON path in partialArgs: ${path}`);
  const out: Segment[] = [];
  let i = 1;
  while (i < path.length) {
    const c = path[i];
    if (c === ".") {
      let j = i + 1;
      while (j < path.length && path[j] !== "." && path[j] !== "[") j++;
      if (j === i + 1) throw new Error(`Unsupported JSON path in partialArgs: ${path}`);
      out.push(path.slice(i + 1, j));
      i = j;
    } else if (c === "[") {
      const close =
        path[i + 1] === "'" || path[i + 1] === '"' ? quotedEnd(path, i + 1) : path.indexOf("]", i);
      if (close < 0) throw new Error(`Unsupported JSON path in partialArgs: ${path}`);
      const inner = path.slice(i + 1, close);
      if (/^\d+$/.test(inner)) out.push(Number(inner));
      else if (/^(['"]).*\1$/s.test(inner)) out.push(unquote(inner));
      else throw new Error(`Unsupported JSON path in partialArgs: ${path}`);
      i = close + 1;
    } else {
      throw new Error(`Unsupported JSON path in partialArgs: ${path}`);
    }
  }
  return out;
}

/** The index of the `]` after a quoted name starting at `start`. */
function quotedEnd(path: string, start: number): number {
  const quote = path[start];
  for (let i = start + 1; i < path.length; i++) {
    if (path[i] === "\\") i++;
    else if (path[i] === quote) return path[i + 1] === "]" ? i + 1 : -1;
  }
  return -1;
}

function unquote(inner: string): string {
  const body = inner.slice(1, -1);
  return body.replace(/\\(.)/gs, (_, ch: string) => ch);
}

function samePath(a: Segment[], b: Segment[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

function escapeString(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
