import type { ToolOutput } from "../loop/tool.js";
import type { ImageBlock, TextBlock } from "../messages/index.js";
import { capMcpOutput } from "./cap-mcp-output.js";
import { type McpContent, mapMcpContent } from "./map-mcp-content.js";

/** A `tools/call` result as the SDK hands it over (the fields mitsu reads). */
export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  /** The pre-2024-11-05 result shape. */
  toolResult?: unknown;
}

/**
 * A `tools/call` result as a tool result: each content item through `mapMcpContent`; `structuredContent` as its
 * JSON when no item carries text; `isError` → `is_error`; capped at `maxTokens` (see `capMcpOutput`). A result
 * with nothing in it says so, since an empty tool result reads to a model like a failure.
 */
export function mapCallResult(result: McpCallResult, maxTokens: number): ToolOutput {
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const item of result.content ?? []) blocks.push(...mapMcpContent(item));
  const hasText = blocks.some((b) => b.type === "text" && b.text !== "");
  if (!hasText && result.structuredContent !== undefined) {
    blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  if (blocks.length === 0 && result.toolResult !== undefined) {
    blocks.push({
      type: "text",
      text: typeof result.toolResult === "string" ? result.toolResult : JSON.stringify(result.toolResult),
    });
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: "(the tool returned no content)" });
  const capped = capMcpOutput(blocks, maxTokens);
  const content = capped.length === 1 && capped[0]!.type === "text" ? capped[0]!.text : capped;
  return { content, isError: result.isError === true };
}
