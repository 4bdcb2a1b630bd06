/**
 * The neutral conversation model. Anthropic-shaped (snake_case, the same block types), since that
 * shape is the richest; other providers translate to and from it. Adapters build wire blocks field by
 * field: fields here that a wire format lacks (`raw_input`, `meta`) are never sent as they are.
 */

/** Prompt-cache marker. Anthropic sends it as is; other providers ignore it. */
export interface CacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

/** Provider-only data kept with a block so it can be sent back next turn (e.g. Gemini `thoughtSignature`). */
export type BlockMeta = Record<string, unknown>;

export interface TextBlock {
  type: "text";
  text: string;
  cache_control?: CacheControl;
  meta?: BlockMeta;
}

export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  /** Anthropic's signature; must be sent back unchanged. */
  signature?: string;
  meta?: BlockMeta;
}

export interface RedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export interface ImageBlock {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
  cache_control?: CacheControl;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  /** The parsed input. `{}` when the input could not be parsed (see `raw_input`). */
  input: Record<string, unknown>;
  /**
   * Set when the streamed input was not valid JSON (`invalid`) or was cut before it ended
   * (`incomplete`): the exact text received. The tool never runs on such input.
   */
  raw_input?: string;
  input_status?: "invalid" | "incomplete";
  cache_control?: CacheControl;
  meta?: BlockMeta;
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: string | Array<TextBlock | ImageBlock>;
  is_error?: boolean;
  cache_control?: CacheControl;
}

/** A block type this version of mitsu does not know (e.g. `server_tool_use`, `compaction`), kept verbatim. */
export interface UnknownBlock {
  type: "unknown";
  /** Which wire format produced it; only that provider sends it back. */
  provider: string;
  data: Record<string, unknown>;
}

export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ImageBlock
  | ToolUseBlock
  | ToolResultBlock
  | UnknownBlock;
