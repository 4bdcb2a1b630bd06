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

/**
 * A tool the provider runs on its own servers (the model calls it and gets its result within one response):
 * `web_search` is Anthropic's `web_search`, OpenAI Responses' `web_search`, Gemini's `google_search` grounding.
 * Providers that have none do not list it in `Provider.serverTools`, and must not be sent one.
 */
export interface ServerTool {
  type: "web_search";
  /** The most searches in one response (Anthropic `max_uses`; others ignore it). */
  maxUses?: number;
  /** Search only these domains (Anthropic, OpenAI Responses; Gemini ignores it). */
  allowedDomains?: string[];
  /** Never these domains (Anthropic only). */
  blockedDomains?: string[];
}
