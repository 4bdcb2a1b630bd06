import { isAbsolute, resolve } from "node:path";
import type { Tool, ToolContext, ToolOutput } from "../loop/tool.js";

/** The tools whose changes `/rewind` can undo: their `permissionFacts` name the files they write. */
const CHECKPOINTED = new Set(["Write", "Edit"]);

/**
 * Write and Edit, each calling `before(path)` with the absolute path of every file the call writes (from its
 * `permissionFacts`) just before its `run`: the harness saves the file's content there. Other tools are returned
 * as they are (Bash's effects are not tracked); names, schemas and every other field stay (the cache prefix too).
 */
export function withCheckpoints(
  tools: readonly Tool<never>[],
  cwd: string,
  before: (path: string) => void,
): Tool<never>[] {
  return tools.map((tool) => {
    if (!CHECKPOINTED.has(tool.name) || !tool.permissionFacts) return tool;
    const run = tool.run as (input: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput>;
    const facts = tool.permissionFacts as (
      input: Record<string, unknown>,
    ) => ReturnType<NonNullable<Tool["permissionFacts"]>>;
    const wrapped = Object.create(tool) as Tool<never>;
    Object.defineProperty(wrapped, "run", {
      enumerable: true,
      value: (input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> => {
        for (const { path, access } of facts.call(tool, input).paths ?? []) {
          if (access !== "write") continue;
          before(isAbsolute(path) ? path : resolve(cwd, path));
        }
        return run.call(tool, input, context);
      },
    });
    return wrapped;
  });
}
