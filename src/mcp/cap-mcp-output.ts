import type { ImageBlock, TextBlock } from "../messages/index.js";

/** `MAX_MCP_OUTPUT_TOKENS`' default, as in Claude Code. */
export const DEFAULT_MAX_MCP_OUTPUT_TOKENS = 25_000;

/** The estimate the rest of mitsu uses: about four characters a token. */
const CHARS_PER_TOKEN = 4;

/**
 * Keeps a tool's output within `maxTokens` (estimated at four characters a token): text is kept in order until
 * the budget is spent, the block where it runs out is cut at a line break when one is near, and a note at the end
 * says how much was left out and how to raise the limit. Images are kept (the providers bound them themselves).
 */
export function capMcpOutput(
  blocks: Array<TextBlock | ImageBlock>,
  maxTokens: number,
): Array<TextBlock | ImageBlock> {
  const budget = maxTokens * CHARS_PER_TOKEN;
  const total = blocks.reduce((sum, b) => sum + (b.type === "text" ? b.text.length : 0), 0);
  if (total <= budget) return blocks;
  const kept: Array<TextBlock | ImageBlock> = [];
  let left = budget;
  for (const block of blocks) {
    if (block.type !== "text") {
      kept.push(block);
      continue;
    }
    if (left <= 0) continue;
    if (block.text.length <= left) {
      kept.push(block);
      left -= block.text.length;
      continue;
    }
    let cut = block.text.slice(0, left);
    const lineBreak = cut.lastIndexOf("\n");
    if (lineBreak > cut.length * 0.8) cut = cut.slice(0, lineBreak + 1);
    kept.push({ type: "text", text: cut });
    left = 0;
  }
  const estimated = Math.ceil(total / CHARS_PER_TOKEN);
  kept.push({
    type: "text",
    text: `\n[Output truncated: the tool returned about ${estimated.toLocaleString("en-US")} tokens, more than the limit of ${maxTokens.toLocaleString("en-US")} (MAX_MCP_OUTPUT_TOKENS). Ask the tool for less, e.g. a narrower query or a page of the results.]`,
  });
  return kept;
}
