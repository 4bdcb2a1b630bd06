import {
  checkMinInteger,
  checkModelAndStream,
  checkToolName,
  isObject,
} from "../openai-shared/check-fields.js";
import type { OpenAIInvalid } from "../openai-shared/openai-error.js";
import { invalidType, missingParameter } from "../openai-shared/param-errors.js";

const ROLES = ["system", "developer", "user", "assistant", "tool"];

/**
 * Validates a Chat Completions body as the real API does (the checks a client can get wrong); returns the first
 * problem in OpenAI's wording, or undefined.
 */
export function validateChatRequest(body: unknown): OpenAIInvalid | undefined {
  if (!isObject(body)) return { message: "The request body must be a JSON object." };
  return (
    checkModelAndStream(body) ??
    checkMinInteger(body.max_tokens, "max_tokens", 1) ??
    checkMinInteger(body.max_completion_tokens, "max_completion_tokens", 1) ??
    checkTools(body.tools) ??
    checkMessages(body.messages)
  );
}

function checkTools(tools: unknown): OpenAIInvalid | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) return invalidType("tools", "an array", tools);
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool)) return invalidType(`tools[${i}]`, "an object", tool);
    if (tool.type !== "function" && tool.type !== "custom") {
      return {
        message: `Invalid value: '${String(tool.type)}'. Supported values are: 'function' and 'custom'.`,
        param: `tools[${i}].type`,
        code: "invalid_value",
      };
    }
    if (tool.type !== "function") continue;
    if (!isObject(tool.function)) return missingParameter(`tools[${i}].function`);
    const bad = checkToolName(tool.function.name, `tools[${i}].function.name`);
    if (bad) return bad;
  }
  return undefined;
}

function checkMessages(messages: unknown): OpenAIInvalid | undefined {
  if (messages === undefined) return missingParameter("messages");
  if (!Array.isArray(messages)) return invalidType("messages", "an array", messages);
  if (messages.length === 0) {
    return {
      message:
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      param: "messages",
      code: "empty_array",
    };
  }
  /** Calls of the last assistant message with tool_calls that no tool message answered yet. */
  let open: { index: number; ids: Set<string> } | undefined;
  /** Ids the tool messages since that assistant message may answer. */
  let answerable = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return invalidType(`messages[${i}]`, "an object", message);
    const role = message.role;
    if (role === undefined) return missingParameter(`messages[${i}].role`);
    if (typeof role !== "string" || !ROLES.includes(role)) {
      return {
        message: `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        param: `messages[${i}].role`,
        code: "invalid_value",
      };
    }
    if (role !== "tool" && open && open.ids.size > 0) return unanswered(open.index, open.ids);
    if (role === "tool") {
      const bad = checkToolMessage(message, i, answerable);
      if (bad) return bad;
      open?.ids.delete(message.tool_call_id as string);
      continue;
    }
    open = undefined;
    answerable = new Set();
    const bad = role === "assistant" ? checkAssistant(message, i) : checkContent(message, i);
    if (bad) return bad;
    if (role === "assistant" && Array.isArray(message.tool_calls) && message.tool_calls.length > 0) {
      const ids = message.tool_calls.map((call) => (call as { id: string }).id);
      open = { index: i, ids: new Set(ids) };
      answerable = new Set(ids);
    }
  }
  if (open && open.ids.size > 0) return unanswered(open.index, open.ids);
  return undefined;
}

function checkContent(message: Record<string, unknown>, i: number): OpenAIInvalid | undefined {
  const { content } = message;
  if (content === undefined) return missingParameter(`messages[${i}].content`);
  if (typeof content !== "string" && !Array.isArray(content)) {
    return invalidType(`messages[${i}].content`, "one of a string or array of objects", content);
  }
  return undefined;
}

function checkAssistant(message: Record<string, unknown>, i: number): OpenAIInvalid | undefined {
  const { content, tool_calls: calls } = message;
  if (content !== undefined && content !== null && typeof content !== "string" && !Array.isArray(content)) {
    return invalidType(`messages[${i}].content`, "one of a string or array of objects", content);
  }
  if (calls === undefined || calls === null) {
    if (content === undefined || content === null) {
      return {
        message: `Invalid value for 'content': expected a string, got null.`,
        param: `messages.[${i}].content`,
      };
    }
    return undefined;
  }
  if (!Array.isArray(calls)) return invalidType(`messages[${i}].tool_calls`, "an array", calls);
  for (const [j, call] of calls.entries()) {
    const at = `messages[${i}].tool_calls[${j}]`;
    if (!isObject(call)) return invalidType(at, "an object", call);
    if (typeof call.id !== "string") return missingParameter(`${at}.id`);
    if (!isObject(call.function)) return missingParameter(`${at}.function`);
    if (typeof call.function.name !== "string") return missingParameter(`${at}.function.name`);
    if (typeof call.function.arguments !== "string") return missingParameter(`${at}.function.arguments`);
  }
  return undefined;
}

function checkToolMessage(
  message: Record<string, unknown>,
  i: number,
  answerable: Set<string>,
): OpenAIInvalid | undefined {
  if (answerable.size === 0) {
    return {
      message:
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      param: `messages.[${i}].role`,
    };
  }
  const id = message.tool_call_id;
  if (id === undefined) return missingParameter(`messages[${i}].tool_call_id`);
  if (typeof id !== "string") return invalidType(`messages[${i}].tool_call_id`, "a string", id);
  if (!answerable.has(id)) {
    return {
      message: `Invalid parameter: 'tool_call_id' of '${id}' not found in 'tool_calls' of previous message.`,
      param: `messages.[${i}].tool_call_id`,
    };
  }
  return checkContent(message, i);
}

function unanswered(index: number, ids: Set<string>): OpenAIInvalid {
  return {
    message:
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
      `The following tool_call_ids did not have response messages: ${[...ids].join(", ")}`,
    param: `messages.[${index}].role`,
  };
}
