import type { ToolUseBlock } from "../messages/index.js";
import type { Tool } from "./tool.js";
import { validateInput } from "./validate-input.js";

/** How much of a call's raw input a one-line summary shows. */
const MAX_RAW = 80;

/**
 * The one-line human summary of a call, for a terminal: the tool's own `summarize` when the input is usable,
 * else the tool's name and the raw input as the model wrote it, cut short. A tool's `summarize` reads fields the
 * schema promised, so input the stream cut, that did not parse, or that breaks the schema never reaches it
 * (it would print `Read undefined`); an unknown tool shows its name and input the same way.
 */
export function summarizeCall(tool: Tool<never> | undefined, block: ToolUseBlock): string {
  if (block.input_status !== undefined) {
    const why = block.input_status === "incomplete" ? "cut short" : "invalid input";
    return `${block.name} ${cutRaw(block.raw_input ?? "")} (${why})`;
  }
  if (!tool) return `${block.name} ${cutRaw(JSON.stringify(block.input))}`;
  if (tool.summarize && validateInput(tool, block.input) === undefined) {
    try {
      return (tool.summarize as (input: Record<string, unknown>) => string)(block.input);
    } catch {
      // A summary is a courtesy: fall through to the raw input.
    }
  }
  const raw = JSON.stringify(block.input);
  return raw === "{}" ? block.name : `${block.name} ${cutRaw(raw)}`;
}

function cutRaw(raw: string): string {
  const flat = raw.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty input)";
  return flat.length > MAX_RAW ? `${flat.slice(0, MAX_RAW)}…` : flat;
}
