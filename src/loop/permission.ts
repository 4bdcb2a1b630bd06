import type { Tool } from "./tool.js";

export type PermissionDecision =
  | { behavior: "allow" /** replaces the input, e.g. after a user's edit */; input?: Record<string, unknown> }
  | { behavior: "deny" /** goes back to the model as the is_error tool_result */; message: string };

/** Asked before each tool call whose input is valid. A denied call has no side effect. */
export type CanUseTool = (
  tool: Tool<never>,
  input: Record<string, unknown>,
  context: {
    toolUseId: string;
    signal: AbortSignal /** the run's ToolContext.state */;
    state?: Map<string, unknown>;
  },
) => Promise<PermissionDecision> | PermissionDecision;
