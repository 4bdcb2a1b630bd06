import type { AgentStopReason } from "../loop/agent-event.js";
import type { ContentBlock, Usage } from "../messages/index.js";

/** The body of a session's `prompt` handler. */
export interface PromptRequest {
  /** The user's message: text, or content blocks. */
  prompt: string | ContentBlock[];
  /**
   * The session's workspace, on its first prompt (later prompts may repeat it, not change it). Resolved and
   * checked by the agent's `workspace` option.
   */
  workspace?: string;
  /** Model calls for this prompt; default the setup's. */
  maxTurns?: number;
  /** How long a permission question waits before the call is denied; default the agent's. */
  askTimeoutMs?: number;
}

/** What a `prompt` returns. */
export interface PromptResponse {
  reason: AgentStopReason;
  /** The text of the last answer. */
  text: string;
  error?: { type: string; message: string };
  /** This prompt's tokens. */
  usage: Usage;
  /** The transcript's length after this prompt. */
  messages: number;
}

/** A session's `approve` / `deny` body: the call (optional when exactly one question waits). */
export interface AnswerRequest {
  toolUseId?: string;
  /** With `deny`: the text the model is given. */
  message?: string;
}

const MAX_TIMEOUT_MS = 30 * 24 * 3_600_000;

/** Checks an untrusted `prompt` body; returns the problem in words, or undefined. */
export function promptRequestProblem(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return 'the body must be a JSON object such as {"prompt": "..."}';
  const request = body as Record<string, unknown>;
  const prompt = request.prompt;
  if (typeof prompt === "string") {
    if (prompt.trim() === "") return "prompt is empty";
  } else if (Array.isArray(prompt)) {
    if (prompt.length === 0) return "prompt has no content blocks";
    for (const block of prompt) {
      const type =
        typeof block === "object" && block !== null ? (block as { type?: unknown }).type : undefined;
      if (typeof type !== "string") return "each content block of prompt needs a type";
      // A person's message holds text and images; a tool_result or tool_use here would forge the agent's own turns.
      if (type !== "text" && type !== "image")
        return `a prompt takes text and image blocks, not ${JSON.stringify(type)}`;
    }
  } else return "prompt must be a string or an array of content blocks";
  if (request.workspace !== undefined && (typeof request.workspace !== "string" || request.workspace === ""))
    return "workspace must be a non-empty string";
  if (request.maxTurns !== undefined && !isCount(request.maxTurns, 1000)) return "maxTurns must be 1 to 1000";
  if (request.askTimeoutMs !== undefined && !isCount(request.askTimeoutMs, MAX_TIMEOUT_MS))
    return "askTimeoutMs must be a positive number of milliseconds (at most 30 days)";
  const known = new Set(["prompt", "workspace", "maxTurns", "askTimeoutMs"]);
  const unknown = Object.keys(request).filter((key) => !known.has(key));
  if (unknown.length > 0) return `unknown field ${unknown.map((key) => JSON.stringify(key)).join(", ")}`;
  return undefined;
}

/** Checks an untrusted `approve` / `deny` body. */
export function answerRequestProblem(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== "object" || Array.isArray(body)) return "the body must be a JSON object or empty";
  const request = body as Record<string, unknown>;
  if (request.toolUseId !== undefined && typeof request.toolUseId !== "string")
    return "toolUseId must be a string";
  if (request.message !== undefined && typeof request.message !== "string") return "message must be a string";
  return undefined;
}

function isCount(value: unknown, max: number): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= max;
}
