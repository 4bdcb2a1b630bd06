import type { Tool, ToolContext, ToolOutput } from "../loop/tool.js";
import type { HookRunner } from "./create-hook-runner.js";

/** Adds text for the model to a tool's output, whatever form the output has. */
function appendText(output: ToolOutput, text: string): ToolOutput {
  if (typeof output === "string") return output ? `${output}\n\n${text}` : text;
  if (Array.isArray(output)) return [...output, { type: "text", text }];
  if (output !== null && typeof output === "object" && "content" in output) {
    return { ...output, content: appendText(output.content, text) as typeof output.content };
  }
  return output;
}

/** The output as a hook reads it (`tool_response`): text as one string; images kept as blocks. */
function responseOf(output: ToolOutput): unknown {
  if (Array.isArray(output)) {
    return output.every((b) => b.type === "text")
      ? output.map((b) => (b.type === "text" ? b.text : "")).join("\n")
      : output;
  }
  if (output !== null && typeof output === "object" && "content" in output) {
    return { content: responseOf(output.content), is_error: output.isError };
  }
  return output;
}

/**
 * The tools with PostToolUse hooks run after each successful `run`: the hook sees the input and the output
 * (`tool_response`); a block (exit 2 or `decision: "block"`) and `additionalContext` are added to the result
 * the model reads. Each tool keeps its name, schema and every other field (its definition, and so the cache
 * prefix, is unchanged); a tool no hook matches is returned as it is.
 */
export function withPostToolHooks(
  tools: readonly Tool<never>[],
  runner: HookRunner,
  onStop?: (reason: string) => void,
): Tool<never>[] {
  return tools.map((tool) => {
    if (!runner.has("PostToolUse", tool.name)) return tool;
    const run = tool.run as (input: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput>;
    const hooked = Object.create(tool) as Tool<never>;
    Object.defineProperty(hooked, "run", {
      enumerable: true,
      value: async (input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> => {
        const output = await run.call(tool, input, context);
        // As in Claude Code, PostToolUse hears of calls that succeeded; a failed one goes back as it is.
        if (output !== null && typeof output === "object" && "isError" in output && output.isError)
          return output;
        const result = await runner.run(
          "PostToolUse",
          {
            tool_name: tool.name,
            tool_input: input,
            tool_use_id: context.toolUseId,
            tool_response: responseOf(output),
          },
          { signal: context.signal },
        );
        if (result.stop !== undefined) onStop?.(result.stop);
        let changed = output;
        if (result.blocked !== undefined)
          changed = appendText(changed, `PostToolUse hook feedback:\n${result.blocked}`);
        for (const text of result.context) changed = appendText(changed, text);
        return changed;
      },
    });
    return hooked;
  });
}
