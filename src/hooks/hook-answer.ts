import { readPermissionUpdates } from "../permissions/permission-update.js";
import { isPlainObject } from "../providers/is-plain-object.js";
import type { HookAnswer, HookEventName, PermissionRequestDecision } from "./hook-event.js";

/**
 * What one hook's run came to, before the answers of an event's hooks are combined: `blocked` (exit code 2,
 * with its stderr), `answer` (exit 0: the JSON on stdout, or plain text), or `error` (any other exit code, a
 * timeout, a crash: shown to the user, nothing else changes).
 */
export type HookOutcome =
  | { kind: "answer"; answer: HookAnswer; text?: string }
  | { kind: "blocked"; message: string }
  | { kind: "error"; message: string };

/**
 * Reads a command hook's result as Claude Code defines it: exit 0 with stdout that is a JSON object is an
 * answer; other stdout is plain text (context for UserPromptSubmit and SessionStart, shown in verbose mode
 * otherwise); exit 2 blocks with stderr; any other code is a non-blocking error.
 */
export function readCommandOutcome(
  event: HookEventName,
  exitCode: number,
  stdout: string,
  stderr: string,
): HookOutcome {
  if (exitCode === 2) return { kind: "blocked", message: stderr.trim() || `The ${event} hook blocked.` };
  if (exitCode !== 0) {
    const detail = stderr.trim() || stdout.trim();
    return { kind: "error", message: `exited with code ${exitCode}${detail ? `: ${detail}` : ""}` };
  }
  const trimmed = stdout.trim();
  if (trimmed.startsWith("{")) {
    try {
      const value: unknown = JSON.parse(trimmed);
      const answer = checkAnswer(value);
      if (typeof answer === "string") return { kind: "error", message: answer };
      return { kind: "answer", answer };
    } catch {
      // Not JSON after all: plain text, as Claude Code treats it.
    }
  }
  return trimmed ? { kind: "answer", answer: {}, text: trimmed } : { kind: "answer", answer: {} };
}

const DECISIONS = new Set(["block", "approve"]);
const PERMISSIONS = new Set(["allow", "deny", "ask"]);

/** The answer with only the fields of the documented types; a string naming what is wrong otherwise. */
export function checkAnswer(value: unknown): HookAnswer | string {
  if (!isPlainObject(value)) return "answered with JSON that is not an object";
  const v = value;
  const answer: HookAnswer = {};
  if (v.continue !== undefined) {
    if (typeof v.continue !== "boolean") return '"continue" is not a boolean';
    answer.continue = v.continue;
  }
  for (const key of ["stopReason", "systemMessage", "reason"] as const) {
    if (v[key] === undefined) continue;
    if (typeof v[key] !== "string") return `"${key}" is not a string`;
    answer[key] = v[key] as string;
  }
  if (v.suppressOutput !== undefined) answer.suppressOutput = v.suppressOutput === true;
  if (v.decision !== undefined && v.decision !== null) {
    if (typeof v.decision !== "string" || !DECISIONS.has(v.decision))
      return `"decision" must be "block" or "approve"`;
    answer.decision = v.decision as "block" | "approve";
  }
  const specific = v.hookSpecificOutput;
  if (specific !== undefined) {
    if (!isPlainObject(specific)) return '"hookSpecificOutput" is not an object';
    const s = specific;
    const out: NonNullable<HookAnswer["hookSpecificOutput"]> = {};
    if (typeof s.hookEventName === "string") out.hookEventName = s.hookEventName;
    if (s.permissionDecision !== undefined) {
      if (typeof s.permissionDecision !== "string" || !PERMISSIONS.has(s.permissionDecision))
        return '"permissionDecision" must be "allow", "deny" or "ask"';
      out.permissionDecision = s.permissionDecision as "allow" | "deny" | "ask";
    }
    for (const key of ["permissionDecisionReason", "additionalContext"] as const) {
      if (s[key] === undefined) continue;
      if (typeof s[key] !== "string") return `"${key}" is not a string`;
      out[key] = s[key] as string;
    }
    if (s.updatedInput !== undefined) {
      if (!isPlainObject(s.updatedInput)) return '"updatedInput" is not an object';
      out.updatedInput = s.updatedInput;
    }
    if (s.action !== undefined) {
      if (s.action !== "accept" && s.action !== "decline" && s.action !== "cancel")
        return '"action" must be "accept", "decline" or "cancel"';
      out.action = s.action;
    }
    if (s.content !== undefined) {
      if (!isPlainObject(s.content)) return '"content" is not an object';
      out.content = s.content;
    }
    if (s.decision !== undefined) {
      const decision = checkPermissionRequestDecision(s.decision);
      if (typeof decision === "string") return decision;
      out.decision = decision;
    }
    answer.hookSpecificOutput = out;
  }
  return answer;
}

/** PermissionRequest's `hookSpecificOutput.decision`: allow (with `updatedInput`) or deny (`message`, `interrupt`). */
function checkPermissionRequestDecision(value: unknown): PermissionRequestDecision | string {
  if (!isPlainObject(value)) return '"hookSpecificOutput.decision" is not an object';
  const d = value;
  if (d.behavior === "allow") {
    const { updates, errors } = readPermissionUpdates(d.updatedPermissions);
    if (errors.length > 0) return `"decision.${errors[0]}"`;
    const withUpdates = updates.length > 0 ? { updatedPermissions: updates } : {};
    if (d.updatedInput === undefined) return { behavior: "allow", ...withUpdates };
    if (!isPlainObject(d.updatedInput)) return '"decision.updatedInput" is not an object';
    return { behavior: "allow", updatedInput: d.updatedInput, ...withUpdates };
  }
  if (d.behavior === "deny") {
    if (d.message !== undefined && typeof d.message !== "string") return '"decision.message" is not a string';
    return {
      behavior: "deny",
      ...(typeof d.message === "string" ? { message: d.message } : {}),
      ...(d.interrupt === true ? { interrupt: true } : {}),
    };
  }
  return '"decision.behavior" must be "allow" or "deny"';
}
