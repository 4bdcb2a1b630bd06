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
 * The tools with PostToolUse hooks run them after each successful `run`, and those with PostToolUseFailure hooks
 * after each failed one (an `isError` output or a throw: the hook reads `error`, its `additionalContext` joins the
 * error the model reads). PostToolUse: the hook sees the input and the output
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
    const onSuccess = runner.has("PostToolUse", tool.name);
    const onFailure = runner.has("PostToolUseFailure", tool.name);
    if (!onSuccess && !onFailure) return tool;
    const run = tool.run as (input: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput>;
    const hooked = Object.create(tool) as Tool<never>;
    const base = (input: Record<string, unknown>, context: ToolContext) => ({
      tool_name: tool.name,
      tool_input: input,
      tool_use_id: context.toolUseId,
    });
    /** PostToolUseFailure: its exit-2 stderr and `additionalContext` join what the model reads of the error. */
    const failed = async (input: Record<string, unknown>, context: ToolContext, error: string) => {
      const result = await runner.run(
        "PostToolUseFailure",
        { ...base(input, context), error, is_interrupt: context.signal.aborted },
        { signal: context.signal, call: { tool } },
      );
      if (result.stop !== undefined) onStop?.(result.stop);
      const added: string[] = [];
      if (result.blocked !== undefined) added.push(`PostToolUseFailure hook feedback:\n${result.blocked}`);
      added.push(...result.context);
      return added;
    };
    Object.defineProperty(hooked, "run", {
      enumerable: true,
      value: async (input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> => {
        let output: ToolOutput;
        try {
          output = await run.call(tool, input, context);
        } catch (error) {
          // The loop makes a thrown error the call's error result; the hooks hear of it first.
          if (!onFailure) throw error;
          const message = error instanceof Error ? error.message : String(error);
          const added = await failed(input, context, message);
          if (added.length === 0) throw error;
          return { content: [message, ...added].join("\n\n"), isError: true };
        }
        if (output !== null && typeof output === "object" && "isError" in output && output.isError) {
          // As in Claude Code, PostToolUse hears of calls that succeeded; PostToolUseFailure of those that failed.
          if (!onFailure) return output;
          const error = responseOf(output.content);
          const added = await failed(
            input,
            context,
            typeof error === "string" ? error : JSON.stringify(error),
          );
          let changed: ToolOutput = output;
          for (const text of added) changed = appendText(changed, text);
          return changed;
        }
        if (!onSuccess) return output;
        const result = await runner.run(
          "PostToolUse",
          { ...base(input, context), tool_response: responseOf(output) },
          { signal: context.signal, call: { tool } },
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
