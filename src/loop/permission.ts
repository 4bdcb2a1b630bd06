import type { AgentPath } from "./agent-event.js";
import type { Tool } from "./tool.js";
import type { ToolState } from "./tool-state.js";

export type PermissionDecision =
  | { behavior: "allow" /** replaces the input, e.g. after a user's edit */; input?: Record<string, unknown> }
  | {
      behavior: "deny";
      /** Goes back to the model as the is_error tool_result. */
      message: string;
      /**
       * The user refused and will say what to do instead (Claude Code's "No, and tell Claude what to do
       * differently"; the Agent SDK's `interrupt`): the turn stops. The calls of the turn that have not started
       * get `USER_STOPPED_MESSAGE`, calls already running finish, and the run ends with reason `denied` after
       * the results are appended, with no further model call.
       */
      interrupt?: boolean;
    };

/** The result of the call the user refused with "no, do this instead" (Claude Code's wording, which models know). */
export const USER_REJECTED_MESSAGE =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/** The result of the other calls of a turn the user stopped by refusing one of them (Claude Code's wording). */
export const USER_STOPPED_MESSAGE =
  "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.";

/** Asked before each tool call whose input is valid. A denied call has no side effect. */
export type CanUseTool = (
  tool: Tool<never>,
  input: Record<string, unknown>,
  context: {
    toolUseId: string;
    /**
     * Aborted when the run is interrupted, and when the user stopped the turn by refusing another call of it
     * (`interrupt`): a question still waiting to be shown is no longer needed.
     */
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
