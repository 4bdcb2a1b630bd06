import type { OpenAIInvalid } from "./openai-error.js";

/** A required parameter that is absent, in OpenAI's wording. */
export function missingParameter(param: string): OpenAIInvalid {
  return { message: `Missing required parameter: '${param}'.`, param, code: "missing_required_parameter" };
}

/** A parameter of the wrong JSON type, in OpenAI's wording; `expected` as the API says it ("a string"). */
export function invalidType(param: string, expected: string, value: unknown): OpenAIInvalid {
  return {
    message: `Invalid type for '${param}': expected ${expected}, but got ${typeName(value)} instead.`,
    param,
    code: "invalid_type",
  };
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
