import type { Tool, ToolOutput } from "../loop/tool.js";

/** What the user said to a plan. */
export type PlanDecision = { approve: "default" | "acceptEdits" } | { refine: string };

export interface ExitPlanModeOptions {
  /** Whether the agent is in plan mode now. */
  inPlanMode: () => boolean;
  /** The mode the user chose for this call when they approved it (before it ran), if they did. */
  approved: (toolUseId: string) => "default" | "acceptEdits" | undefined;
  /** Leaves plan mode for `mode`. */
  setMode: (mode: "default" | "acceptEdits") => void;
}

/**
 * `ExitPlanMode` (Claude Code's name): in plan mode the model presents its plan for approval. The question is
 * the call's permission question (asked by the harness before the call runs); so the call runs only once the
 * plan is approved — by the user, in the mode they chose, or by a rule that allows `ExitPlanMode` (then the
 * default mode) — and its result tells the model to carry the plan out. A refusal is the call's `is_error`
 * result, with the user's feedback. `readOnly`, so plan mode lets it through to its question.
 */
export function createExitPlanModeTool(options: ExitPlanModeOptions): Tool<{ plan: string }> {
  return {
    name: "ExitPlanMode",
    description:
      "Use it in plan mode, when you have finished researching and have a plan for the task: it presents the plan (markdown, concise, with the files to change and the steps) to the user for approval. If they approve, you may start changing things; if not, their feedback comes back and you refine the plan. Do not use it for research-only tasks, or outside plan mode.",
    inputSchema: {
      type: "object",
      properties: { plan: { type: "string", description: "The plan, in markdown" } },
      required: ["plan"],
      additionalProperties: false,
    },
    readOnly: true,
    sequential: true,
    summarize: () => "ExitPlanMode",
    async run(_input, context): Promise<ToolOutput> {
      let mode = options.approved(context.toolUseId);
      if (mode === undefined) {
        if (!options.inPlanMode()) {
          return {
            content: "Not in plan mode: there is no plan to approve; go on with the task.",
            isError: true,
          };
        }
        mode = "default";
        options.setMode(mode);
      }
      const edits = mode === "acceptEdits" ? " File edits are accepted without asking." : "";
      return `The user approved your plan. Plan mode is over (permission mode: ${mode}).${edits} Carry out the plan now, starting with the first step.`;
    },
  };
}
