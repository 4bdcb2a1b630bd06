import type { Tool } from "../../loop/tool.js";
import type { JsonSchema } from "../../messages/index.js";

/** The tool's name, as in Claude Code: the model ends with a call to it. */
export const STRUCTURED_OUTPUT_TOOL = "StructuredOutput";

/** How often the model is told again to give its answer through the tool before the prompt fails. */
export const STRUCTURED_OUTPUT_RETRIES = 2;

/** What is added to the system prompt when a JSON schema is given. */
export const STRUCTURED_OUTPUT_INSTRUCTION = `When you have finished the task, give your final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool exactly once, with the answer as its input; its input schema is the required format of the answer.`;

/** The reminder sent when the model ended without a valid call. */
export const STRUCTURED_OUTPUT_REMINDER = `You must give your final answer by calling the ${STRUCTURED_OUTPUT_TOOL} tool, with input that matches its schema. Call it now.`;

/**
 * `--json-schema` as Claude Code does it: a `StructuredOutput` tool whose input schema is the schema. The loop
 * validates its input against the schema before `run` (an invalid call goes back to the model as an error), so
 * whatever `run` receives validates; the last such input is `result.structured_output`. A schema whose top
 * level is not an object is wrapped as `{ "result": … }` (tool input is always an object) and unwrapped here.
 */
export function createStructuredOutput(schema: Record<string, unknown>) {
  const wrapped = schema.type !== "object";
  let value: unknown;
  let given = false;
  const tool: Tool<Record<string, unknown>> = {
    name: STRUCTURED_OUTPUT_TOOL,
    description:
      "Give the final answer in the required format. Call this once, at the end, with the answer as the input.",
    inputSchema: (wrapped
      ? { type: "object", properties: { result: schema }, required: ["result"], additionalProperties: false }
      : schema) as JsonSchema,
    readOnly: true,
    async run(input) {
      value = wrapped ? input.result : input;
      given = true;
      return "Structured output provided successfully.";
    },
  };
  return {
    tool: tool as unknown as Tool<never>,
    /** Forgets the previous prompt's answer. */
    reset() {
      value = undefined;
      given = false;
    },
    get given() {
      return given;
    },
    get value() {
      return value;
    },
  };
}
