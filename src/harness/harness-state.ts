import type { SubagentSpawner } from "../agents/index.js";
import type { Context } from "../context/index.js";
import type { HookRunner } from "../hooks/index.js";
import type { ReplaceHistory } from "../loop/history-replacement.js";
import type { CanUseTool } from "../loop/permission.js";
import type { Tool } from "../loop/tool.js";
import type { ToolState } from "../loop/tool-state.js";
import type { Message } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { SessionLog } from "../session/index.js";
import type { HookNotices } from "./capabilities/hooks.js";
import type { CapabilityList } from "./capability-list.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import type { CostMeter } from "./cost-meter.js";
import type { ModelSetup } from "./model-setup.js";
import type { PromptCheckpoints } from "./prompt-checkpoints.js";

/** The harness's state of one conversation, as the prompt runner and the agent's methods share it. */
export interface HarnessState {
  readonly options: CodingAgentOptions;
  readonly models: ModelSetup;
  readonly capabilities: CapabilityList;
  readonly hookRunner: HookRunner;
  readonly notices: HookNotices;
  readonly canUseTool: CanUseTool;
  readonly spawn: SubagentSpawner;
  readonly toolState: ToolState;
  /** The tools the runs get: checkpointed, with PostToolUse hooks around them. */
  readonly runTools: Tool<never>[];
  readonly checkpoints: PromptCheckpoints;
  readonly meter: CostMeter;
  readonly replaceHistory: ReplaceHistory | undefined;
  /** A request's estimated size in tokens (the loop checks each one against the window before it is sent). */
  readonly requestTokens: ((request: ModelRequest) => number) | undefined;
  readonly maxTurns: number;
  readonly defaultMaxTokens: number;
  context: Context;
  history: Message[];
  log: SessionLog | undefined;
  /** Whether this agent writes a session log. */
  readonly logging: boolean;
  running: boolean;
  closed: boolean;
  thinkingBudget: number | undefined;
  /** The top-level agent's input tokens of its last request; undefined before the first answer. */
  used: number | undefined;
  /** Set by `compact()` between prompts: the next request starts a new prefix epoch. */
  pendingEpoch: { reason: string; keepReminders?: boolean } | undefined;
  /** How the next SessionStart names the conversation's start; undefined once it has fired. */
  sessionSource: "startup" | "resume" | "clear" | undefined;
  /** What the Setup hooks (`setupHooks`) gave the model, for the first prompt; emptied when it is sent. */
  setupContext: string[];
  /** Stops the prompt now running (a hook's `continue: false`). */
  stopRun: ((reason: string) => void) | undefined;
  /** Opens the session file (made with the first prompt). */
  newLog(): SessionLog;
  /** Takes in the tool lists capabilities changed since the last prompt; returns why, if any did. */
  applyToolChanges(): string | undefined;
  /** max_tokens for a prompt: above the thinking budget, within the model's limit. */
  maxTokensFor(requested: number): number;
}
