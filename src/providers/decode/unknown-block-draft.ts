import { JsonAccumulator } from "../../stream/json-accumulator.js";
import { isPlainObject } from "../is-plain-object.js";

/**
 * A content block of a type this version does not know, kept verbatim (it goes back to its provider as it came)
 * with the deltas that grow it merged in. Linear in the bytes received: string parts are joined once at the end.
 */
export class UnknownBlockDraft {
  private readonly data: Record<string, unknown>;
  /** String fields grown by deltas (e.g. `compaction_delta.content`). */
  private readonly strings = new Map<string, string[]>();
  /** `input_json_delta` fragments (a server tool's input), parsed into `input` at the end. */
  private input: JsonAccumulator | undefined;

  constructor(start: Record<string, unknown>) {
    this.data = { ...start };
  }

  /**
   * Merges one delta. `input_json_delta` grows `input`; for other delta types, strings grow the field of the
   * same name and other values replace it.
   */
  apply(delta: Record<string, unknown>): void {
    if (delta.type === "input_json_delta") {
      if (typeof delta.partial_json === "string") {
        this.input ??= new JsonAccumulator({ live: false });
        this.input.push(delta.partial_json);
      }
      return;
    }
    for (const [key, value] of Object.entries(delta)) {
      if (key === "type") continue;
      const current = this.data[key];
      if (
        typeof value === "string" &&
        (current === undefined || current === null || typeof current === "string")
      ) {
        let parts = this.strings.get(key);
        if (!parts) {
          parts = typeof current === "string" ? [current] : [];
          this.strings.set(key, parts);
        }
        parts.push(value);
      } else {
        this.strings.delete(key);
        this.data[key] = value;
      }
    }
  }

  /** The block's data with every delta merged in. */
  finish(): Record<string, unknown> {
    const data = this.data;
    for (const [key, parts] of this.strings) data[key] = parts.join("");
    if (this.input && this.input.text.trim() !== "") {
      const result = this.input.finish();
      // Only a whole object replaces the start placeholder: the block is sent back as is, so it must stay valid.
      if (result.status === "ok" && isPlainObject(result.value)) data.input = result.value;
    }
    return data;
  }
}
