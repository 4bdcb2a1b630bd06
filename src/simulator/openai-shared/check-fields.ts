import type { OpenAIInvalid } from "./openai-error.js";
import { invalidType, missingParameter } from "./param-errors.js";

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** A function tool's name as OpenAI checks it: ^[a-zA-Z0-9_-]{1,64}$, in the API's wording. */
export function checkToolName(name: unknown, param: string): OpenAIInvalid | undefined {
  if (name === undefined) return missingParameter(param);
  if (typeof name !== "string") return invalidType(param, "a string", name);
  if (name.length > 64) {
    return {
      message: `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`,
      param,
      code: "string_above_max_length",
    };
  }
  if (!TOOL_NAME.test(name)) {
    return {
      message: `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      code: "invalid_value",
    };
  }
  return undefined;
}

/** An optional integer field with a minimum (max_tokens and friends), in the API's wording. */
export function checkMinInteger(value: unknown, param: string, min: number): OpenAIInvalid | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value)) return invalidType(param, "an integer", value);
  if (value < min) {
    return {
      message: `Invalid '${param}': integer below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
      param,
      code: "integer_below_min_value",
    };
  }
  return undefined;
}

/**
 * The checks both OpenAI protocols start a body with, in the API's order: `model` present and a non-empty
 * string, then `stream` a boolean when given.
 */
export function checkModelAndStream(body: Record<string, unknown>): OpenAIInvalid | undefined {
  if (body.model === undefined) return missingParameter("model");
  if (typeof body.model !== "string" || body.model === "")
    return invalidType("model", "a string", body.model);
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean") {
    return invalidType("stream", "a boolean", body.stream);
  }
  return undefined;
}

/** A plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
