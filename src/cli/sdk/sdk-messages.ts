import { randomBytes, randomUUID } from "node:crypto";
import type { CodingAgent, PermissionDenial } from "../../harness/index.js";
import type { AgentEvent, AgentResult } from "../../loop/agent-event.js";
import type { Usage } from "../../messages/index.js";
import { packageVersion } from "../version.js";
import { type ModelFacts, ModelUsageBook } from "./model-usage.js";
import { rawStreamEvents } from "./raw-stream-events.js";

/** How a prompt ended, beyond the loop's own reasons (the SDK's own limits). */
export type SdkStop =
  | { kind: "budget"; limitUsd: number }
  | { kind: "structured_output_retries" }
  | { kind: "interrupted" };

/** What the mapping needs from the session. */
export interface SdkOutputOptions {
  sessionId: () => string;
  /** The main model's id now (`set_model` changes it). */
  model: () => string;
  facts: (model: string) => ModelFacts;
  includePartialMessages: boolean;
  cacheTtl?: "5m" | "1h";
}

/** Claude Code's `terminal_reason` and `result.subtype` for how a run ended. */
function endOf(result: AgentResult, stop: SdkStop | undefined) {
  if (stop?.kind === "budget")
    return {
      subtype: "error_max_budget_usd",
      terminal: "budget_exhausted",
      error: `Reached the maximum budget of $${stop.limitUsd}`,
    };
  if (stop?.kind === "structured_output_retries")
    return {
      subtype: "error_max_structured_output_retries",
      terminal: "structured_output_retry_exhausted",
      error: "The model did not give a structured output that validates against the JSON schema.",
    };
  if (stop?.kind === "interrupted" || result.reason === "aborted")
    return {
      subtype: "error_during_execution",
      terminal: "aborted_streaming",
      error: "Interrupted by the app.",
    };
  switch (result.reason) {
    case "end_turn":
    case "stop_sequence":
      return { subtype: "success", terminal: "completed" };
    case "max_turns":
      return {
        subtype: "error_max_turns",
        terminal: "max_turns",
        error: "Reached the maximum number of turns.",
      };
    case "denied":
      return { subtype: "success", terminal: "completed" };
    case "max_tokens":
      return {
        subtype: "error_during_execution",
        terminal: "model_error",
        error: "The answer was cut at the output token limit (max_tokens).",
      };
    case "refusal":
      return {
        subtype: "error_during_execution",
        terminal: "model_error",
        error: "The model refused to answer.",
      };
    default:
      return {
        subtype: "error_during_execution",
        terminal: "api_error",
        error: result.error?.message ?? "The run failed.",
      };
  }
}

/**
 * The messages of Claude Code's SDK stream for one session: one `assistant` message per content block (each
 * with the message `id`), `user` messages with the tool results, `stream_event` lines with the raw stream
 * events when asked for, and a `result` per prompt with `modelUsage` per model (sub-agents' calls included),
 * `total_cost_usd`, `permission_denials`, `errors` and `terminal_reason`. Every message has a `uuid`.
 */
export function createSdkOutput(options: SdkOutputOptions) {
  let book = new ModelUsageBook(options.facts, options.cacheTtl);
  let startedAt = Date.now();
  let apiMs = 0;
  let turns = 0;
  let turnStartedAt: number | undefined;
  /** The model and the streamed message's id of each agent's current turn (by agent path). */
  const current = new Map<string, { model: string; id: string }>();
  const envelope = (parent: string | null) => ({
    parent_tool_use_id: parent,
    uuid: randomUUID(),
    session_id: options.sessionId(),
  });
  const output = {
    /** Call before each prompt. */
    start() {
      book = new ModelUsageBook(options.facts, options.cacheTtl);
      startedAt = Date.now();
      apiMs = 0;
      turns = 0;
    },
    /** Usage of a call outside the events (a `/compact` summary). */
    record(model: string, usage: Usage) {
      book.add(model, usage);
    },
    /** The prompt's cost so far (null: a model without a known price answered). */
    cost(): number | null {
      return book.cost();
    },
    lines(event: AgentEvent): unknown[] {
      const path = event.agentPath.join("/");
      const parent = event.agentPath.at(-1) ?? null;
      if (event.type === "turn-start") {
        current.set(path, { model: event.request.model, id: `msg_${randomBytes(12).toString("hex")}` });
        if (event.agentPath.length === 0) turnStartedAt = Date.now();
        return [];
      }
      if (event.type === "history-replaced" && event.usage) {
        book.add(current.get(path)?.model ?? options.model(), event.usage);
        return [];
      }
      if (event.type === "message") {
        const message = event.message;
        if (message.role === "assistant") {
          const turn = current.get(path);
          const model = message.model ?? turn?.model ?? options.model();
          if (message.usage) book.add(model, message.usage);
          if (event.agentPath.length === 0) {
            turns++;
            if (turnStartedAt !== undefined) apiMs += Date.now() - turnStartedAt;
            turnStartedAt = undefined;
          }
          const id = message.id ?? turn?.id ?? `msg_${randomBytes(12).toString("hex")}`;
          return message.content.map((block) => ({
            type: "assistant",
            message: {
              id,
              type: "message",
              role: "assistant",
              model,
              content: [block],
              stop_reason: message.stop_reason ?? null,
              stop_sequence: null,
              usage: usageOf(message.usage),
            },
            ...envelope(parent),
          }));
        }
        const results = message.content.filter((b) => typeof b !== "string" && b.type === "tool_result");
        if (results.length === 0) return [];
        return [{ type: "user", message: { role: "user", content: results }, ...envelope(parent) }];
      }
      if (!options.includePartialMessages) return [];
      if (event.type === "message-start" && event.id) {
        const turn = current.get(path);
        if (turn) turn.id = event.id;
      }
      const turn = current.get(path);
      return rawStreamEvents(event, turn?.id ?? "msg", turn?.model ?? options.model()).map((raw) => ({
        type: "stream_event",
        event: raw,
        ...envelope(parent),
      }));
    },
    result(
      result: AgentResult,
      extra: {
        denials: readonly PermissionDenial[];
        stop?: SdkStop;
        structuredOutput?: unknown;
      },
    ) {
      const end = endOf(result, extra.stop);
      const text = (result.lastMessage?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
      return {
        type: "result",
        subtype: end.subtype,
        is_error: end.subtype !== "success",
        duration_ms: Date.now() - startedAt,
        duration_api_ms: apiMs,
        num_turns: turns,
        ...(end.subtype === "success" ? { result: text } : { errors: [end.error ?? "The run failed."] }),
        stop_reason: result.lastMessage?.stop_reason ?? null,
        total_cost_usd: book.cost(),
        usage: usageOf(result.usage),
        modelUsage: book.modelUsage(),
        permission_denials: extra.denials,
        ...(extra.structuredOutput !== undefined ? { structured_output: extra.structuredOutput } : {}),
        terminal_reason: end.terminal,
        uuid: randomUUID(),
        session_id: options.sessionId(),
      };
    },
  };
  return output;
}

function usageOf(u: Usage | undefined) {
  return {
    input_tokens: u?.input_tokens ?? 0,
    output_tokens: u?.output_tokens ?? 0,
    cache_read_input_tokens: u?.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: u?.cache_creation_input_tokens ?? 0,
  };
}

/** Claude Code's `system`/`init` message: what the session has (tools, servers, commands, agents, skills). */
export function initMessage(
  agent: CodingAgent,
  info: {
    cwd: string;
    sessionId: string;
    model: string;
    permissionMode: string;
    mcpServers: ReadonlyArray<{ name: string; status: string }>;
  },
) {
  return {
    type: "system",
    subtype: "init",
    cwd: info.cwd,
    session_id: info.sessionId,
    tools: agent.tools.map((t) => t.name),
    mcp_servers: info.mcpServers.map((s) => ({ name: s.name, status: s.status })),
    model: info.model,
    permissionMode: info.permissionMode,
    slash_commands: agent.skills.skills.map((s) => s.name),
    agents: agent.agents.agents.map((a) => a.name),
    skills: agent.skills.skills.filter((s) => s.kind === "skill").map((s) => s.name),
    plugins: [],
    // The key's source as Claude Code names it; mitsu has no Claude login ("none" for other providers).
    apiKeySource: agent.providerName === "anthropic" ? "ANTHROPIC_API_KEY" : "none",
    claude_code_version: `mitsu ${packageVersion()}`,
    output_style: "default",
    uuid: randomUUID(),
  };
}
