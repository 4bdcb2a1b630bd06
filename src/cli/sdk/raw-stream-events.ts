import type { AgentEvent } from "../../loop/agent-event.js";

/**
 * A provider-neutral stream event as the Anthropic Messages API's raw stream event (`message_start`,
 * `content_block_start`, `content_block_delta`, …): the `event` of Claude Code's `stream_event` lines, whatever
 * provider answered. `messageId` names the message being streamed.
 */
export function rawStreamEvents(event: AgentEvent, messageId: string, model: string): unknown[] {
  const index = "id" in event && typeof event.id === "string" ? Number(event.id) : 0;
  switch (event.type) {
    case "message-start":
      return [
        {
          type: "message_start",
          message: {
            id: messageId,
            type: "message",
            role: "assistant",
            model: event.model ?? model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0 },
          },
        },
      ];
    case "text-start":
      return [{ type: "content_block_start", index, content_block: { type: "text", text: "" } }];
    case "text-delta":
      return [{ type: "content_block_delta", index, delta: { type: "text_delta", text: event.delta } }];
    case "thinking-start":
      return [
        {
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        },
      ];
    case "thinking-delta":
      return [
        { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: event.delta } },
      ];
    case "tool-input-start":
      return [
        {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: event.toolUseId, name: event.name, input: {} },
        },
      ];
    case "tool-input-delta":
      return [
        {
          type: "content_block_delta",
          index,
          delta: { type: "input_json_delta", partial_json: event.delta },
        },
      ];
    case "text-end":
    case "thinking-end":
    case "tool-input-end":
      return [{ type: "content_block_stop", index }];
    case "message-end": {
      const { stop_reason, usage } = event.message;
      return [
        {
          type: "message_delta",
          delta: { stop_reason: stop_reason ?? null, stop_sequence: null },
          usage: usage ?? { output_tokens: 0 },
        },
        { type: "message_stop" },
      ];
    }
    default:
      return [];
  }
}
