import type { OpenAIInvalid } from "./openai-error.js";

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** A function tool's name as OpenAI checks it: ^[a-zA-Z0-9_-]{1,64}$, in the API's wording. */
export function checkToolName(name: unknown, param: string): OpenAIInvalid | undefined {
  if (name === undefined)
    return { message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" };
  if (typeof name !== "string") {
    return {
      message: `Invalid type for '${param}': expected a string, but got ${typeName(name)} instead.`,
      param,
      code: "invalid_type",
    };
  }
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
  if (typeof value !== "number" || !Number.isInteger(value)) {
    return {
      message: `Invalid type for '${param}': expected an integer, but got ${typeName(value)} instead.`,
      param,
      code: "invalid_type",
    };
  }
  if (value < min) {
    return {
      message: `Invalid '${param}': integer below minimum value. Expected a value >= ${min}, but got ${value} instead.`,
      param,
      code: "integer_below_min_value",
    };
  }
  return undefined;
}

/** How OpenAI names a JSON value's type in its messages. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  if (typeof value === "string") return "a string";
  if (typeof value === "boolean") return "a boolean";
  return typeof value;
}

/** A plain JSON object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
