type Json = Record<string, unknown>;

const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

/**
 * Validates a generateContent body as the real API does (the checks a client can get wrong); returns the first
 * problem's 400 INVALID_ARGUMENT message (Google's wording where known), or undefined. Function calling:
 * a model turn with functionCall parts must follow a user turn, and the next content must be a user turn
 * with as many functionResponse parts, answering the same names.
 */
export function validateGeminiRequest(body: unknown): string | undefined {
  if (!isObject(body)) return "Invalid JSON payload received. Expected an object.";
  const { contents } = body;
  if (contents === undefined || (Array.isArray(contents) && contents.length === 0)) {
    return "* GenerateContentRequest.contents: contents is not specified";
  }
  if (!Array.isArray(contents))
    return "Invalid JSON payload received. Invalid value at 'contents' (type.googleapis.com/google.ai.generativelanguage.v1beta.Content).";
  return checkTools(body.tools) ?? checkConfig(body.generationConfig) ?? checkContents(contents);
}

function checkTools(tools: unknown): string | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return "Invalid JSON payload received. Invalid value at 'tools'.";
  for (const [i, tool] of tools.entries()) {
    const declarations = isObject(tool)
      ? (tool.functionDeclarations ?? tool.function_declarations)
      : undefined;
    if (!Array.isArray(declarations)) continue;
    for (const [j, declaration] of declarations.entries()) {
      const name = isObject(declaration) ? declaration.name : undefined;
      if (typeof name !== "string" || !FUNCTION_NAME.test(name)) {
        return (
          `* GenerateContentRequest.tools[${i}].function_declarations[${j}].name: Invalid function name. Must start ` +
          "with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, " +
          "with a maximum length of 64."
        );
      }
    }
  }
  return undefined;
}

function checkConfig(config: unknown): string | undefined {
  if (!isObject(config) || config.maxOutputTokens === undefined) return undefined;
  const max = config.maxOutputTokens;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1) {
    return "* GenerateContentRequest.generation_config.max_output_tokens: max_output_tokens must be positive.";
  }
  return undefined;
}

function checkContents(contents: unknown[]): string | undefined {
  for (const [i, content] of contents.entries()) {
    if (!isObject(content)) return `Invalid JSON payload received. Invalid value at 'contents[${i}]'.`;
    const role = content.role ?? "user";
    if (role !== "user" && role !== "model") return "Please use a valid role: user, model.";
    if (!Array.isArray(content.parts) || content.parts.length === 0) {
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
    }
  }
  for (const [i, content] of contents.entries()) {
    const error = checkFunctionTurn(contents as Json[], i, content as Json);
    if (error) return error;
  }
  return undefined;
}

function checkFunctionTurn(contents: Json[], i: number, content: Json): string | undefined {
  const role = content.role ?? "user";
  const previous = contents[i - 1];
  if (role === "user") {
    const responses = partsWith(content, "functionResponse");
    if (responses.length === 0) return undefined;
    if (
      !previous ||
      (previous.role ?? "user") !== "model" ||
      partsWith(previous, "functionCall").length === 0
    ) {
      return "Please ensure that function response turn comes immediately after a function call turn.";
    }
    return undefined;
  }
  const calls = partsWith(content, "functionCall");
  if (calls.length === 0) return undefined;
  if (!previous || (previous.role ?? "user") !== "user") {
    return "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
  }
  const next = contents[i + 1];
  const responses = next && (next.role ?? "user") === "user" ? partsWith(next, "functionResponse") : [];
  if (responses.length !== calls.length) {
    return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
  }
  const unanswered = [...calls];
  for (const response of responses) {
    const at = unanswered.indexOf(response);
    if (at < 0) {
      return (
        `* GenerateContentRequest.contents[${i + 1}]: function response '${response}' does not answer a function ` +
        `call of contents[${i}] (calls: ${calls.join(", ")}).`
      );
    }
    unanswered.splice(at, 1);
  }
  return undefined;
}

/** The names in a content's parts of one kind (`functionCall` / `functionResponse`). */
function partsWith(content: Json, kind: "functionCall" | "functionResponse"): string[] {
  const names: string[] = [];
  for (const part of content.parts as unknown[]) {
    const value = isObject(part) ? part[kind] : undefined;
    if (isObject(value)) names.push(typeof value.name === "string" ? value.name : "");
  }
  return names;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
