import type { ImageBlock, JsonSchema, TextBlock, ToolDefinition } from "../messages/index.js";
import type { AgentPath } from "./agent-event.js";
import type { Spawn, Spawner } from "./spawn.js";
import type { ToolState } from "./tool-state.js";

/** What a tool returns: plain text, or text and image blocks. Throwing `ToolError` (or anything) makes an `is_error` result. */
export type ToolOutput =
  | string
  | Array<TextBlock | ImageBlock>
  | { content: string | Array<TextBlock | ImageBlock>; isError: boolean };

export interface ToolContext {
  /** Aborted when the run is aborted; a tool must stop promptly and release what it holds. */
  signal: AbortSignal;
  /** The id of the tool_use block being answered. */
  toolUseId: string;
  /** State shared by the calls of the conversation (the files Read so far), in typed slots; see `ToolState`. */
  state: ToolState;
  /** The agent making the call: empty at the top level (see `AgentPath`). */
  agentPath: AgentPath;
  /**
   * Starts a sub-agent whose events surface in this run's stream, tagged with `agentPath` + `toolUseId`.
   * Present only when the run was given a spawner (`RunAgentOptions.spawn`); a tool that needs it says so
   * in its result when it is absent.
   */
  spawn?: Spawn;
  /**
   * The run's spawner itself, for a child that outlives this call (a background sub-agent): the tool chooses its
   * `agentPath` and `signal`, and receives its events. Present when `spawn` is.
   */
  spawner?: Spawner;
  /**
   * A tool may report what it is doing (e.g. a command's output as it arrives); the loop turns each call into a
   * `tool-progress` event. Never required, never awaited: a tool works the same without it, and a call after
   * the tool's result is ignored.
   */
  progress?: (text: string) => void;
}

/**
 * What the permission checker needs to know about a call, stated by the tool itself (the checker never reads
 * a tool's input fields by name). Paths are as the model wrote them (relative to the working folder, `~`
 * allowed); the checker resolves them.
 */
export interface PermissionFacts {
  /**
   * The files or folders the call touches. `write` is matched by `Edit(...)` rules and allowed by acceptEdits
   * inside the workspace; `read` by `Read(...)` rules. `folder: true` means everything below the path (a search).
   */
  paths?: Array<{ path: string; access: "read" | "write"; folder?: boolean }>;
  /** A shell command line the call runs: matched command by command against `Bash(...)` rules. */
  command?: string;
  /** A URL the call fetches: matched by `WebFetch(domain:...)` rules. */
  url?: string;
  /** The call's main argument for messages and prompts, e.g. a search pattern: `Grep(TODO)`. */
  display?: string;
}

/**
 * A tool the model can call. `inputSchema` is validated (ajv, compiled lazily and cached) before `run`,
 * so `run` receives input that matches it. `run` is called at most once per tool_use block.
 */
export interface Tool<Input = Record<string, unknown>> {
  name: string;
  /** Written for the model: when to use it, and its limits. */
  description: string;
  inputSchema: JsonSchema;
  /** Anthropic `eager_input_streaming`: true for tools that carry large parameters (a file's content). */
  eagerInputStreaming?: boolean;
  /** Runs alone: never concurrently with other calls of the same turn. */
  sequential?: boolean;
  /** Has no side effects (allowed in plan mode). */
  readOnly?: boolean;
  /**
   * Optional checks that need no permission and change nothing (the path is in the workspace, the file was
   * Read, old_string matches once). Runs after schema validation and before the permission question, so a call
   * that cannot succeed fails at once instead of asking the user to allow it. Throw (a ToolError) to fail.
   * `run` must still check for itself: the world may change between the two.
   */
  check?(input: Input, context: ToolContext): Promise<void>;
  run(input: Input, context: ToolContext): Promise<ToolOutput>;
  /**
   * What the call touches, for the permission checker. A tool without it is matched by name only (a rule
   * `Name` allows or denies it; otherwise it is asked, unless it is `readOnly`-by-default in the checker).
   * Must not throw and must not touch the disk: it runs on validated input before anything is allowed.
   */
  permissionFacts?(input: Input): PermissionFacts;
  /**
   * Not sent as a definition (large tool sets: the model finds it with a search tool, which returns its schema);
   * a call to it by name is still validated against `inputSchema` and run as usual.
   */
  deferred?: boolean;
  /** A short human summary of a call for the terminal, e.g. `Read src/a.ts`. */
  summarize?(input: Input): string;
}

/** Thrown by a tool: its message goes back to the model as an `is_error` tool_result. */
export class ToolError extends Error {
  override name = "ToolError";
}

export function toToolDefinition(tool: Tool<never>): ToolDefinition {
  const def: ToolDefinition = {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  };
  if (tool.eagerInputStreaming !== undefined) def.eager_input_streaming = tool.eagerInputStreaming;
  return def;
}

/** The definitions a request carries: every tool's but the deferred ones', in order. */
export function definitionsOf(tools: readonly Tool<never>[]): ToolDefinition[] {
  return tools.filter((tool) => tool.deferred !== true).map((tool) => toToolDefinition(tool));
}
