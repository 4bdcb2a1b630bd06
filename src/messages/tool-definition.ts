import type { CacheControl } from "./content.js";

/** A JSON Schema object (draft 2020-12 / draft-07 subset that all providers accept). */
export type JsonSchema = Record<string, unknown>;

/** What the model sees of a tool: the `tools` field. */
export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: JsonSchema;
  /**
   * Anthropic fine-grained tool streaming: `true` streams unvalidated input as it is generated,
   * `false` is sent explicitly to keep buffering (even under the legacy beta header), absent sends nothing.
   */
  eager_input_streaming?: boolean;
  cache_control?: CacheControl;
}
