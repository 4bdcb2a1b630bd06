import type { AgentPath } from "../loop/agent-event.js";
import type { PermissionDecision } from "../loop/permission.js";
import type { PrepareRequestInfo } from "../loop/run-agent.js";
import type { Spawner } from "../loop/spawn.js";
import type { Tool } from "../loop/tool.js";
import type { ToolState, ToolStateKey } from "../loop/tool-state.js";
import type { Message, TextBlock } from "../messages/index.js";
import type { ModelRequest, Provider } from "../providers/provider.js";

/** The session a setup is made for. */
export interface DurableSession {
  /** The virtual object's key. */
  id: string;
  /** The session's workspace on this worker (checked to exist), or undefined when the agent needs none. */
  workspace: string | undefined;
}

/**
 * A permission decision that may wait for a person: `ask` suspends the session until someone approves or denies
 * the call (`SessionClient.approve` / `deny`, `mitsu remote approve|deny`), or until the deadline denies it.
 */
export type DurableDecision = PermissionDecision | { behavior: "ask"; display: string; reason: string };

/**
 * Decides a tool call of the top-level agent. Runs once per call inside a journaled step (never again after a
 * crash), after the input was validated. Must not have side effects and must not wait for a person itself.
 */
export type DurablePermissions = (
  tool: Tool<never>,
  input: Record<string, unknown>,
  context: { toolUseId: string; agentPath: AgentPath; state: ToolState },
) => Promise<DurableDecision> | DurableDecision;

/**
 * What one invocation of a session runs: the loop's options for that session. Made again on every worker that
 * runs or resumes the session, so it must be the same on each (same tools in the same order, same model):
 * the journal replays the recorded model answers and tool results against it.
 */
export interface DurableAgentSetup {
  provider: Provider;
  model: string;
  /**
   * The system prompt for a new session. Stored with the session at its first prompt and sent again on every
   * later prompt, whichever worker runs it (the prefix stays byte-identical; a worker's clock or git state
   * does not leak into it).
   */
  system?: string | TextBlock[];
  tools?: Tool<never>[];
  /** Default: every call is allowed (the embedder's tools are trusted). */
  permissions?: DurablePermissions;
  maxTurns?: number;
  maxTokens?: number;
  thinkingBudget?: number;
  temperature?: number;
  /**
   * Runs before each request, as the loop's `prepareRequest`. Runs again when a run resumes on another worker,
   * so it must be a pure function of the request (cache breakpoints are; reminders read from a worker's
   * memory are not).
   */
  prepareRequest?: (request: ModelRequest, info: PrepareRequestInfo) => ModelRequest | Promise<ModelRequest>;
  /**
   * The per-turn reminders (`<system-reminder>` blocks: a file changed on disk, the todo list) for the request's
   * newest user message, as a local session adds them. Run before `prepareRequest` as a journaled step, so that a
   * replay, on any worker, sends what was sent; the message is stored with them, as a local session's is.
   */
  reminders?: (request: ModelRequest, info: PrepareRequestInfo) => TextBlock[] | Promise<TextBlock[]>;
  /**
   * What a session's first message carries besides the prompt (the project instructions, the skills list): given
   * the first user message, the message as it is to be sent. Runs once per session, as a journaled step (a
   * resumed run gets the recorded message); later prompts are sent as they are.
   */
  firstMessage?: (message: Message) => Promise<Message>;
  /**
   * Present when the agent starts sub-agents (the Task tool). In a durable session a sub-agent does not run
   * through this spawner: it runs as a session of its own (`<session>.<tool_use id>`, on any worker), with the
   * tools its request names (`spawnTools` too, unless it is read-only: a sub-agent's sub-agents do not nest
   * further), the permissions above and its own journal, transcript and questions.
   */
  spawn?: Spawner;
  /** The tools that start sub-agents; default `["Task"]`. */
  spawnTools?: string[];
  /**
   * The tool-state slots that follow the session to another worker and to its next prompt (each must have
   * `persist`): saved with each tool step's journal entry and in the session's state. Default: the files Read
   * (so Edit works after a Read of an earlier prompt or on another worker) and the active skills' pre-approvals.
   */
  toolStateKeys?: ToolStateKey<never>[];
  /** Called when the invocation ends on this worker (stops background shells, closes what setup opened). */
  close?: () => Promise<void>;
}
