import {
  checkMinInteger,
  checkModelAndStream,
  checkToolName,
  isObject,
} from "../openai-shared/check-fields.js";
import type { OpenAIInvalid } from "../openai-shared/openai-error.js";
import { invalidType, missingParameter } from "../openai-shared/param-errors.js";

const ROLES = ["assistant", "system", "developer", "user"];
/** The Responses API rejects smaller output limits. */
export const MIN_OUTPUT_TOKENS = 16;

/**
 * Validates a Responses body as the real API does (the checks a client can get wrong); returns the first
 * problem in OpenAI's wording, or undefined. The simulator keeps no responses, so `previous_response_id` is
 * always unknown (as it is on the real API with `store: false`).
 */
export function validateResponsesRequest(body: unknown): OpenAIInvalid | undefined {
  if (!isObject(body)) return { message: "The request body must be a JSON object." };
  const bad = checkModelAndStream(body);
  if (bad) return bad;
  if (
    body.instructions !== undefined &&
    body.instructions !== null &&
    typeof body.instructions !== "string"
  ) {
    return invalidType("instructions", "a string", body.instructions);
  }
  if (typeof body.previous_response_id === "string") {
    return {
      message: `Previous response with id '${body.previous_response_id}' not found.`,
      param: "previous_response_id",
      code: "previous_response_not_found",
    };
  }
  return (
    checkMinInteger(body.max_output_tokens, "max_output_tokens", MIN_OUTPUT_TOKENS) ??
    checkTools(body.tools) ??
    checkInput(body.input)
  );
}

function checkTools(tools: unknown): OpenAIInvalid | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) return invalidType("tools", "an array", tools);
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool)) return invalidType(`tools[${i}]`, "an object", tool);
    if (typeof tool.type !== "string") return missingParameter(`tools[${i}].type`);
    // Built-in tools (web_search, file_search, …) have no name of their own.
    if (tool.type !== "function") continue;
    const bad = checkToolName(tool.name, `tools[${i}].name`);
    if (bad) return bad;
  }
  return undefined;
}

function checkInput(input: unknown): OpenAIInvalid | undefined {
  if (input === undefined) return missingParameter("input");
  if (typeof input === "string") return undefined;
  if (!Array.isArray(input)) return invalidType("input", "one of a string or array of input items", input);
  const calls: string[] = [];
  const answered = new Set<string>();
  for (const [i, item] of input.entries()) {
    if (!isObject(item)) return invalidType(`input[${i}]`, "an object", item);
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    if (type === undefined) return missingParameter(`input[${i}].type`);
    if (type === "message") {
      const bad = checkMessage(item, i);
      if (bad) return bad;
    } else if (type === "function_call") {
      for (const field of ["call_id", "name", "arguments"]) {
        if (typeof item[field] !== "string") return missingParameter(`input[${i}].${field}`);
      }
      calls.push(item.call_id as string);
    } else if (type === "function_call_output") {
      if (typeof item.call_id !== "string") return missingParameter(`input[${i}].call_id`);
      if (!calls.includes(item.call_id)) {
        return {
          message: `No tool call found for function call output with call_id ${item.call_id}.`,
          param: "input",
        };
      }
      answered.add(item.call_id);
      if (item.output === undefined) return missingParameter(`input[${i}].output`);
    }
  }
  const open = calls.find((id) => !answered.has(id));
  if (open !== undefined)
    return { message: `No tool output found for function call ${open}.`, param: "input" };
  return undefined;
}

function checkMessage(item: Record<string, unknown>, i: number): OpenAIInvalid | undefined {
  const { role, content } = item;
  if (role === undefined) return missingParameter(`input[${i}].role`);
  if (typeof role !== "string" || !ROLES.includes(role)) {
    return {
      message: `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
      param: `input[${i}].role`,
      code: "invalid_value",
    };
  }
  if (content === undefined) return missingParameter(`input[${i}].content`);
  if (typeof content !== "string" && !Array.isArray(content)) {
    return invalidType(`input[${i}].content`, "one of a string or array of input content items", content);
  }
  return undefined;
}
