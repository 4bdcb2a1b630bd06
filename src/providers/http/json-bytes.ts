/**
 * The UTF-8 bytes of `JSON.stringify(value)`, byte for byte, built without a string of the whole document: the
 * JSON of each top-level field, and of each element of a top-level array (a request's messages, tools, system
 * blocks), is written into one buffer of the exact size. A request body of a long session is hundreds of KB;
 * one string of it (and the flattened copy that encoding it to bytes makes) is a large object, allocated outside
 * the young generation, that lingers as garbage until a full GC — about 1 MB of heap a request, which is what
 * made a 300-turn session's peak RSS. The pieces here are a message each: short-lived, collected young.
 *
 * Same semantics as `JSON.stringify`: fields whose value has no JSON (undefined, a function, a symbol) are left
 * out, such array elements become `null`, `toJSON` is honoured (a top-level value with `toJSON` is stringified
 * whole; an element's `toJSON` is called with the key `""` rather than its index, which no request body uses).
 * Throws what `JSON.stringify` throws (a cycle, a BigInt). `allocate` gives the buffer to write into, of exactly
 * `size` bytes (default: a new one).
 */
export function jsonBytes(value: unknown, allocate: (size: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const pieces = jsonPieces(value);
  let size = 0;
  for (const piece of pieces) size += Buffer.byteLength(piece);
  const bytes = allocate(size);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}

/** The JSON text of `value` in pieces whose concatenation is `JSON.stringify(value)`. */
function jsonPieces(value: unknown): string[] {
  if (Array.isArray(value) && !hasToJson(value)) return arrayPieces(value, "", []);
  if (!isSplittableRecord(value)) {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("jsonBytes: the value has no JSON text");
    return [json];
  }
  const pieces: string[] = [];
  let separator = "{";
  for (const key of Object.keys(value)) {
    const field = value[key];
    const head = `${separator}${JSON.stringify(key)}:`;
    if (Array.isArray(field) && !hasToJson(field)) {
      arrayPieces(field, head, pieces);
    } else {
      const json = JSON.stringify(field);
      if (json === undefined) continue;
      pieces.push(head, json);
    }
    separator = ",";
  }
  pieces.push(separator === "{" ? "{}" : "}");
  return pieces;
}

/**
 * The array's pieces appended to `pieces` (returned). Separators are pieces of their own: joined to a large
 * element's JSON, they would make a copy of it.
 */
function arrayPieces(array: readonly unknown[], head: string, pieces: string[]): string[] {
  if (array.length === 0) {
    pieces.push(`${head}[]`);
    return pieces;
  }
  pieces.push(`${head}[`);
  for (let i = 0; i < array.length; i++) {
    if (i > 0) pieces.push(",");
    pieces.push(JSON.stringify(array[i]) ?? "null");
  }
  pieces.push("]");
  return pieces;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === "function";
}

/** An object whose JSON is its own enumerable fields (no `toJSON`, not an array or a boxed primitive). */
function isSplittableRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || hasToJson(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
