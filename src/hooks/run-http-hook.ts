import { type HookOutcome, readCommandOutcome } from "./hook-answer.js";
import { hookDeadline } from "./hook-deadline.js";
import type { HookInput } from "./hook-event.js";

/** The most of a response body that is read. */
const MAX_BODY = 1024 * 1024;

export interface RunHttpHookOptions {
  url: string;
  input: HookInput;
  headers?: Record<string, string>;
  /** The variables `$NAME` / `${NAME}` in `headers` may name; any other is replaced by "". */
  allowedEnvVars?: readonly string[];
  /** Where the allowed variables are read. */
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** `$NAME` and `${NAME}` in a header value: the allowed ones from `env`, the rest empty (as Claude Code does). */
export function interpolateHeader(value: string, allowed: readonly string[], env: NodeJS.ProcessEnv): string {
  return value.replace(/\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced, bare) => {
    const name = (braced ?? bare) as string;
    return allowed.includes(name) ? (env[name] ?? "") : "";
  });
}

/**
 * Runs one `type: "http"` hook as Claude Code does: the event's JSON is POSTed to the URL; a 2xx response's body
 * is the hook's answer, read as a command hook's stdout (JSON output, or plain text; empty is no answer). A
 * non-2xx status, a failed connection or the timeout are non-blocking errors: to block, the server answers 2xx
 * with a blocking JSON answer. Never throws.
 */
export async function runHttpHook(options: RunHttpHookOptions): Promise<HookOutcome> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  for (const [name, value] of Object.entries(options.headers ?? {}))
    headers[name] = interpolateHeader(value, options.allowedEnvVars ?? [], options.env);
  const deadline = hookDeadline(options.timeoutMs, options.signal);
  try {
    const response = await fetch(options.url, {
      method: "POST",
      headers,
      body: JSON.stringify(options.input),
      signal: deadline.signal,
      // A redirect would send the input elsewhere than the settings name.
      redirect: "error",
    });
    const body = await readCapped(response);
    if (response.status < 200 || response.status > 299) {
      const detail = body.trim().slice(0, 200);
      return { kind: "error", message: `answered HTTP ${response.status}${detail ? `: ${detail}` : ""}` };
    }
    return readCommandOutcome(options.input.hook_event_name, 0, body, "");
  } catch (error) {
    return { kind: "error", message: deadline.why() ?? `could not be reached: ${(error as Error).message}` };
  } finally {
    deadline.release();
  }
}

/**
 * The first `MAX_BODY` characters of the response's body; the rest is not read (the stream is cancelled), so a
 * server that sends without end neither fills the memory nor holds the hook to its timeout.
 */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      text += decoder.decode(value, { stream: !done });
      if (done || text.length >= MAX_BODY) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return text.slice(0, MAX_BODY);
}
