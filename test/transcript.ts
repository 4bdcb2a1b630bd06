import type { Message, ToolDefinition } from "../src/messages/index.js";

/** A PNG pixel, base64. */
export const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

export const READ_TOOL: ToolDefinition = {
  name: "Read",
  description: "Read a file",
  input_schema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { file_path: { type: "string", description: "Absolute path" } },
    required: ["file_path"],
    additionalProperties: false,
  },
};

/**
 * A transcript with everything an encoder must carry: user text and an image, thinking, text, two tool calls
 * (one whose input did not parse), results (one an error, one with an image), and a final answer.
 */
export function richTranscript(): Message[] {
  return [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in a.ts and this picture?" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should read the file.", signature: "sig-1" },
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "call_1", name: "Read", input: { file_path: "/w/a.ts" } },
        {
          type: "tool_use",
          id: "call_2",
          name: "Read",
          input: {},
          raw_input: '{"file_path": /w/b.ts}',
          input_status: "invalid",
        },
      ],
      stop_reason: "tool_use",
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "call_1",
          content: [
            { type: "text", text: "export const a = 1;" },
            { type: "image", source: { type: "url", url: "https://example.com/shot.png" } },
          ],
        },
        {
          type: "tool_result",
          tool_use_id: "call_2",
          content: '{"INVALID_JSON":"{\\"file_path\\": /w/b.ts}"}',
          is_error: true,
        },
        { type: "text", text: "<system-reminder>Be brief.</system-reminder>" },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "a.ts exports a = 1." }], stop_reason: "end_turn" },
  ];
}
