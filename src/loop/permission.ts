import type { AgentPath } from "./agent-event.js";
import type { Tool } from "./tool.js";
import type { ToolState } from "./tool-state.js";

export type PermissionDecision =
  | { behavior: "allow" /** replaces the input, e.g. after a user's edit */; input?: Record<string, unknown> }
  | { behavior: "deny" /** goes back to the model as the is_error tool_result */; message: string };

/** Asked before each tool call whose input is valid. A denied call has no side effect. */
export type CanUseTool = (
  tool: Tool<never>,
  input: Record<string, unknown>,
  context: {
    toolUseId: string;
    signal: AbortSignal;
    /** The run's `ToolContext.state` (an active skill's pre-approved rules live there). */
    state?: ToolState;
    /** The agent asking: empty at the top level; a sub-agent's calls are decided by its parent's checker. */
    agentPath?: AgentPath;
    /**
     * Who asks, in words, for a question shown to the user: a sub-agent's kind and task (`Explore: find the
     * auth code`). Absent at the top level. Set by the spawner's wrapper around the parent's checker.
     */
    agent?: string;
    /**
     * A PreToolUse hook answered "allow": the call need not be asked about, but deny and ask rules still apply
     * (as in Claude Code), and so do plan mode and the writes that are always asked. A checker that does not
     * know this field asks as usual.
     */
    hookAllowed?: boolean;
  },
) => Promise<PermissionDecision> | PermissionDecision;
