import type { CodingAgent } from "../../harness/index.js";
import type { AgentEvent, AgentResult } from "../../loop/agent-event.js";
import type { Usage } from "../../messages/index.js";
import { usageCost } from "../../providers/model-prices.js";

/** Claude Code's `result.subtype` for how a run ended. */
function subtypeOf(result: AgentResult): string {
  if (result.reason === "end_turn" || result.reason === "stop_sequence") return "success";
  if (result.reason === "max_turns") return "error_max_turns";
  return "error_during_execution";
}

function finalText(result: AgentResult): string {
  return (result.lastMessage?.content ?? []).map((b) => (b.type === "text" ? b.text : "")).join("");
}

/** What one run adds to Claude Code's `result` object, measured by `createClaudeOutput`. */
export interface RunTiming {
  startedAt: number;
  apiMs: number;
  turns: number;
  deniedBefore: number;
}

/**
 * `--output-format json` / `stream-json` in Claude Code's documented shapes, so that scripts written for it
 * read mitsu unchanged: a `system`/`init` line, then `assistant` and `user` messages as the Messages API gives
 * them (each with `session_id` and `parent_tool_use_id`), then one `result` object. `total_cost_usd` is the
 * run's cost from the catalog's (or models.json's) price, cache reads and writes at their rates; null when the
 * model's price is unknown: a made-up 0 would be a lie a budget script believes.
 */
export function createClaudeOutput(
  agent: CodingAgent,
  options: { cwd: string; permissionMode: string; cacheTtl?: "5m" | "1h" },
) {
  const sessionId = () => agent.sessionId ?? null;
  let timing: RunTiming = { startedAt: Date.now(), apiMs: 0, turns: 0, deniedBefore: 0 };
  let turnStartedAt: number | undefined;
  let initSent = false;
  const output = {
    /** The `system`/`init` line; sent by `lines` before the first event (the session id exists by then). */
    init() {
      return {
        type: "system",
        subtype: "init",
        cwd: options.cwd,
        session_id: sessionId(),
        tools: agent.tools.map((t) => t.name),
        mcp_servers: [],
        model: agent.model,
        permissionMode: options.permissionMode,
        slash_commands: agent.skills.skills.map((s) => s.name),
        apiKeySource: "environment",
      };
    },
    /** Call before each prompt. */
    start() {
      timing = { startedAt: Date.now(), apiMs: 0, turns: 0, deniedBefore: agent.permissionDenials.length };
    },
    /** The stream-json lines for one event (none for most: Claude Code prints whole messages). */
    lines(event: AgentEvent): unknown[] {
      if (!initSent) {
        initSent = true;
        return [output.init(), ...output.lines(event)];
      }
      if (event.type === "turn-start" && event.agentPath.length === 0) turnStartedAt = Date.now();
      if (event.type !== "message") return [];
      const parent = event.agentPath.length === 0 ? null : (event.agentPath.at(-1) ?? null);
      if (event.message.role === "assistant") {
        if (event.agentPath.length === 0) {
          timing.turns++;
          if (turnStartedAt !== undefined) timing.apiMs += Date.now() - turnStartedAt;
          turnStartedAt = undefined;
        }
        const { usage, stop_reason, content } = event.message;
        return [
          {
            type: "assistant",
            message: {
              type: "message",
              role: "assistant",
              model: agent.model,
              content,
              stop_reason: stop_reason ?? null,
              usage: usage ?? null,
            },
            parent_tool_use_id: parent,
            session_id: sessionId(),
          },
        ];
      }
      // A user message inside a run carries the tool results; the prompt itself was the caller's.
      const results = event.message.content.filter((b) => typeof b !== "string" && b.type === "tool_result");
      if (results.length === 0) return [];
      return [
        {
          type: "user",
          message: { role: "user", content: results },
          parent_tool_use_id: parent,
          session_id: sessionId(),
        },
      ];
    },
    result(result: AgentResult) {
      const subtype = subtypeOf(result);
      return {
        type: "result",
        subtype,
        is_error: subtype !== "success",
        duration_ms: Date.now() - timing.startedAt,
        duration_api_ms: timing.apiMs,
        num_turns: timing.turns,
        result: finalText(result),
        stop_reason: result.reason,
        session_id: sessionId(),
        total_cost_usd: agent.price ? usageCost(result.usage, agent.price, options.cacheTtl ?? "5m") : null,
        usage: usageOf(result.usage),
        permission_denials: agent.permissionDenials.slice(timing.deniedBefore),
        ...(result.error ? { error: result.error } : {}),
      };
    },
  };
  return output;
}

function usageOf(u: Usage) {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
  };
}
