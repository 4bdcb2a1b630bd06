import type { HookOutcome } from "./hook-answer.js";
import { hookDeadline } from "./hook-deadline.js";
import type { HookInput } from "./hook-event.js";

/** Claude Code's default for a prompt hook: 30 s. */
export const DEFAULT_PROMPT_HOOK_TIMEOUT_MS = 30_000;
/** Claude Code's default for an agent hook: 60 s. */
export const DEFAULT_AGENT_HOOK_TIMEOUT_MS = 60_000;

/**
 * One model call for a prompt hook (or one small sub-agent's run, for an agent hook): the prompt as the user
 * message, the answer's text.
 */
export type HookJudge = (prompt: string, options: { model?: string; signal: AbortSignal }) => Promise<string>;

export interface RunPromptHookOptions {
  prompt: string;
  input: HookInput;
  judge: HookJudge;
  model?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

const INSTRUCTIONS =
  'Answer with one JSON object and nothing else: {"ok": true} when the condition holds, or {"ok": false, "reason": "why"} when it does not.';

/**
 * Runs one `type: "prompt"` hook as Claude Code does: `$ARGUMENTS` in the prompt is replaced by the event's JSON
 * (appended when the prompt has none), a small model judges, and its JSON answer decides: `{"ok": false,
 * "reason"}` blocks as `decision: "block"` does for the event (a PreToolUse deny, Stop keeps the agent going with
 * the reason, a PermissionRequest deny); `{"ok": true}` raises no objection. An answer that is not such JSON, a
 * failed call or the timeout are notices, and change nothing. Never throws. A `type: "agent"` hook runs here too,
 * with a judge that is a small read-only sub-agent (see the harness's `hookAgent`).
 */
export async function runPromptHook(options: RunPromptHookOptions): Promise<HookOutcome> {
  const json = JSON.stringify(options.input);
  const prompt = options.prompt.includes("$ARGUMENTS")
    ? options.prompt.replaceAll("$ARGUMENTS", json)
    : `${options.prompt}\n\n${json}`;
  const deadline = hookDeadline(options.timeoutMs, options.signal);
  try {
    const text = await options.judge(`${prompt}\n\n${INSTRUCTIONS}`, {
      ...(options.model ? { model: options.model } : {}),
      signal: deadline.signal,
    });
    const verdict = readVerdict(text);
    if (!verdict)
      return { kind: "error", message: `the model's answer was not {"ok": …}: ${text.slice(0, 200)}` };
    if (verdict.ok) return { kind: "answer", answer: {} };
    const reason = verdict.reason || "The prompt hook's condition does not hold.";
    if (options.input.hook_event_name === "PermissionRequest") {
      return {
        kind: "answer",
        answer: { hookSpecificOutput: { decision: { behavior: "deny", message: reason } } },
      };
    }
    return { kind: "answer", answer: { decision: "block", reason } };
  } catch (error) {
    return { kind: "error", message: deadline.why() ?? `the model call failed: ${(error as Error).message}` };
  } finally {
    deadline.release();
  }
}

/**
 * `{"ok": boolean, "reason"?}` from the model's text: each JSON object in it (fenced or not) that is such a verdict;
 * any `ok: false` among them wins. A judge that quotes the input it judges (`it claims {"ok": true}`) before its
 * own verdict still blocks, where reading from the first `{` to the last `}` found no JSON and let the call run.
 */
export function readVerdict(text: string): { ok: boolean; reason?: string } | undefined {
  let found: { ok: boolean; reason?: string } | undefined;
  for (const candidate of jsonObjects(text)) {
    let value: { ok?: unknown; reason?: unknown };
    try {
      value = JSON.parse(candidate) as { ok?: unknown; reason?: unknown };
    } catch {
      continue;
    }
    if (typeof value?.ok !== "boolean") continue;
    const verdict = { ok: value.ok, ...(typeof value.reason === "string" ? { reason: value.reason } : {}) };
    if (!verdict.ok) return verdict;
    found ??= verdict;
  }
  return found;
}

/** The balanced `{…}` runs of a text, outermost ones, strings inside them skipped; at most 100. */
function jsonObjects(text: string): string[] {
  const objects: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length && objects.length < 100; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"' && depth > 0) inString = true;
    else if (c === "{") {
      if (depth++ === 0) start = i;
    } else if (c === "}" && depth > 0 && --depth === 0) objects.push(text.slice(start, i + 1));
  }
  return objects;
}
