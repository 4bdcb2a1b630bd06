import type { Message, TextBlock } from "../messages/index.js";
import type { AgentEvent, AgentPath, AgentResult } from "./agent-event.js";

/** What a tool (a Task tool) asks for when it starts a sub-agent. */
export interface SpawnRequest {
  /** The child's own system prompt: a child does not inherit its parent's. */
  system: string | TextBlock[];
  /** The child's first user message. A child does not see the parent's transcript: this is all it knows. */
  prompt: string;
  /**
   * The names of the parent's tools the child may use (a subset; default: all the spawner offers children).
   * A name the spawner does not know ends the child at once with an `invalid_tools` error.
   */
  tools?: readonly string[];
  /** A `provider:model` spec the spawner resolves (so a child may use another provider); default the parent's. */
  model?: string;
  /** The child's model call limit; default the spawner's. */
  maxTurns?: number;
  /** A short label for a UI (e.g. the Task call's description). */
  description?: string;
  /** The kind of agent (e.g. `Explore`): names the child in permission questions, logs and the UI. */
  agent?: string;
  /**
   * The child may only look: every call of a tool that is not `readOnly` is denied, as in plan mode, except
   * shell commands that change nothing (the spawner decides which). The parent's rules still apply on top.
   */
  readOnly?: boolean;
  /**
   * A continuation: the child's transcript so far (as its earlier run left it), to which `prompt` is added as a
   * new user message. With the same `system` and tools, its next request extends its previous one (its cache).
   */
  history?: readonly Message[];
  /**
   * Messages for the child while it runs: drained before each of its requests, each text added to its newest
   * user message as a `<system-reminder>` (append-only, like every reminder).
   */
  inbox?: () => string[];
}

/** Where a child is started from: the loop fills this in for the tool call that spawns. */
export interface SpawnOrigin {
  /** The child's path: the parent's `agentPath` plus the spawning call's tool_use id. */
  agentPath: AgentPath;
  /** The parent run's signal: aborting the parent aborts the child. */
  signal: AbortSignal;
}

/**
 * Starts a child run, provided by the composition root (the harness) through `RunAgentOptions.spawn`, so a
 * Task tool never imports the code that composes agents.
 *
 * Contract: returns a `runAgent`-like generator whose events carry `origin.agentPath`; honours `origin.signal`;
 * never throws — a child that cannot start (unknown model, unknown tool name, too deep) ends with one
 * `agent-end` of reason `error`. The parent's permission checker decides the child's calls too.
 */
export type Spawner = (request: SpawnRequest, origin: SpawnOrigin) => AsyncGenerator<AgentEvent, AgentResult>;

/**
 * What a tool sees as `ToolContext.spawn`: runs a child to its end and resolves with its result. While the
 * calling tool runs, every event of the child is forwarded into the parent run's event stream (after the
 * call's `tool-call-start`, before its `tool-call-end`); after the call's result is in, the child's late
 * events are dropped. Resolves, never rejects (see `Spawner`).
 */
export type Spawn = (request: SpawnRequest) => Promise<AgentResult>;
