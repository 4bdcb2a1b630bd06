import type { ToolDefinition } from "../../messages/index.js";

/**
 * The system block that teaches the tag format and lists the tools. A pure function of the tools, so the
 * system prompt stays byte-identical across turns (the prompt cache holds).
 *
 * The format is a JSON body inside one tag: models copy JSON reliably, the body streams straight into the same
 * JSON accumulator as native tool input, and one attribute leaves little to get wrong.
 */
export function renderToolPrompt(tools: readonly ToolDefinition[]): string {
  const lines = [
    "# Tools",
    "",
    "You can call tools. To call a tool, write a tool_call tag whose body is the tool's input as one JSON object:",
    "",
    '<tool_call name="TOOL_NAME">{"parameter": "value"}</tool_call>',
    "",
    "Rules:",
    "- The body is strict JSON that matches the tool's input schema: double-quoted keys and strings, and inside strings escape quotes, backslashes and newlines (\\\", \\\\, \\n).",
    "- name is the only attribute. Write the tag as plain text, not inside a code block.",
    "- To call several tools, write one tag after another.",
    '- After your tool calls, end your answer. The results come back in the next user message as <tool_result id="…" name="…">…</tool_result>; a result with is_error="true" says what went wrong.',
    "- Write <tool_call> only to call a tool.",
    "",
    "## Available tools",
  ];
  for (const tool of tools) {
    lines.push(
      "",
      `### ${tool.name}`,
      tool.description,
      `Input schema: ${JSON.stringify(tool.input_schema)}`,
    );
  }
  return lines.join("\n");
}
