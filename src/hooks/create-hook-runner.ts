import { homedir } from "node:os";
import { resolve } from "node:path";
import type { HookOutcome } from "./hook-answer.js";
import { checkAnswer } from "./hook-answer.js";
import { compileHookCondition, type HookCall } from "./hook-condition.js";
import {
  type HookCallbacks,
  type HookEventName,
  type HookInput,
  type HookInputBase,
  type HookInputOf,
  type PermissionRequestDecision,
  TOOL_EVENTS,
} from "./hook-event.js";
import { type CommandHook, compileMatcher, DEFAULT_HOOK_TIMEOUT_MS } from "./load-hooks.js";
import { runCommandHook } from "./run-command-hook.js";
import { runHttpHook } from "./run-http-hook.js";
import { type HookJudge, runPromptHook } from "./run-prompt-hook.js";

/**
 * What the matcher of a non-tool event is matched against, as Claude Code documents it: SessionStart's `source`
 * (`startup`, `resume`, `clear`, `compact`), PreCompact's `trigger` (`manual`, `auto`), SessionEnd's `reason`,
 * Setup's `trigger` (`init`, `maintenance`).
 * An empty matcher (or `*`) still matches everything.
 */
const MATCHED_FIELD: Partial<Record<HookEventName, string>> = {
  SessionStart: "source",
  PreCompact: "trigger",
  SessionEnd: "reason",
  SubagentStart: "agent_type",
  Setup: "trigger",
  Elicitation: "mcp_server_name",
  ElicitationResult: "mcp_server_name",
};

/** What the hooks of one event came to, all of them together. */
export interface HookResult {
  /**
   * Set when a hook blocked (exit 2, `decision: "block"`, or a PreToolUse `permissionDecision: "deny"`): the
   * reasons of every hook that blocked, one per line.
   */
  blocked?: string;
  /** PreToolUse: deny wins over ask, ask over allow. */
  permission?: "allow" | "deny" | "ask";
  permissionReason?: string;
  /** PreToolUse: the input to run with (the last hook's that gave one). */
  updatedInput?: Record<string, unknown>;
  /** Text for the model: `additionalContext`, and plain stdout of UserPromptSubmit and SessionStart hooks. */
  context: string[];
  /**
   * PermissionRequest: the hooks' answer to the question in the user's place (exit 2 is a deny). Any deny wins;
   * otherwise the last allow (with its `updatedInput`).
   */
  decision?: PermissionRequestDecision;
  /** Set when a hook answered `continue: false`: the agent stops; the value is its `stopReason` (or ""). */
  stop?: string;
  /**
   * Elicitation: the answer in the user's place; ElicitationResult: the answer sent instead (the last hook's that
   * gave an `action`; exit 2 declines; a decline or cancel stands against a later hook's accept).
   */
  elicitation?: { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
}

/** A notice for the user about a hook: its failure, its `systemMessage`, or (verbose) its output. */
export interface HookNotice {
  event: HookEventName;
  kind: "error" | "message" | "output";
  message: string;
}

export interface HookRunnerOptions {
  hooks: readonly CommandHook[];
  callbacks?: HookCallbacks;
  /** The project folder: where command hooks run, and the root of the relative paths in `if` rules. */
  cwd: string;
  /** The folder `~/` in `if` rules refers to. Default: the user's. */
  home?: string;
  /** The model call of `prompt` hooks; without it, a prompt hook is a notice and changes nothing. */
  judge?: HookJudge;
  /**
   * The run of `agent` hooks: a small sub-agent with read-only tools (Read, Grep, Glob) whose final text is the
   * answer; without it, an agent hook is a notice and changes nothing.
   */
  agentJudge?: HookJudge;
  /** The scrubbed child environment. */
  env: NodeJS.ProcessEnv;
  /** The fields every input carries, read when an event fires (the session file may change). */
  base: () => HookInputBase;
  /** Where notices go; must not throw. */
  notify: (notice: HookNotice) => void;
}

export interface HookRunner {
  /** Whether any hook (command or callback) listens to `event` (for `toolName`, where the event has one). */
  has(event: HookEventName, toolName?: string): boolean;
  /** Whether any hook listens to `event`, whatever its matcher. */
  listens(event: HookEventName): boolean;
  /**
   * Runs every hook of the event that matches, concurrently, and combines their answers. Never throws: a
   * hook that fails, hangs past its timeout or answers nonsense is a notice, and changes nothing.
   */
  run<E extends HookEventName>(
    event: E,
    fields: Omit<HookInputOf<E>, keyof HookInputBase | "hook_event_name">,
    options?: { signal?: AbortSignal; call?: Omit<HookCall, "toolName" | "input"> },
  ): Promise<HookResult>;
  /** The command hooks, as loaded (for `/hooks`). */
  readonly commands: readonly CommandHook[];
}

interface Entry {
  label: string;
  matches: (toolName: string) => boolean;
  /** The hook's `if` (tool events only). */
  condition?: (call: HookCall) => Promise<boolean>;
  start: (input: HookInput, signal: AbortSignal | undefined) => Promise<HookOutcome>;
  /**
   * Whether the hook is the user's own (a file in the home folder, an embedder's callback): only such a hook's
   * `updatedPermissions` may reach the user's settings, which hold for every project.
   */
  userOwned: boolean;
}

/** Where block reasons go per event, as Claude Code defines exit code 2. */
const BLOCKING: ReadonlySet<HookEventName> = new Set([
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "PostToolUseFailure",
  "PermissionRequest",
]);
/** Events whose hooks' plain stdout is context for the model. */
const STDOUT_IS_CONTEXT: ReadonlySet<HookEventName> = new Set(["UserPromptSubmit", "SessionStart"]);

/** A `prompt` or `agent` hook: its judge answers `{ok, reason}` (see `runPromptHook`). */
function judgeHook(
  hook: CommandHook,
  input: HookInput,
  judge: HookJudge | undefined,
  signal: AbortSignal | undefined,
): Promise<HookOutcome> {
  if (!judge) {
    const what = hook.type === "agent" ? "no agent" : "no model to judge with";
    return Promise.resolve({ kind: "error", message: `cannot run: ${what} here` });
  }
  return runPromptHook({
    prompt: hook.command,
    input,
    judge,
    ...(hook.model ? { model: hook.model } : {}),
    timeoutMs: hook.timeoutMs,
    ...(signal ? { signal } : {}),
  });
}

export function createHookRunner(options: HookRunnerOptions): HookRunner {
  const entries = new Map<HookEventName, Entry[]>();
  const add = (event: HookEventName, entry: Entry) => {
    const list = entries.get(event) ?? [];
    list.push(entry);
    entries.set(event, list);
  };
  const where = { cwd: options.cwd, home: options.home ?? homedir() };
  const userFiles = [".mitsu", ".claude"].map((dir) => resolve(where.home, dir, "settings.json"));
  for (const hook of options.hooks) {
    const env = hook.env ? { ...options.env, ...hook.env } : options.env;
    add(hook.event, {
      label: `${hook.type ? `${hook.type} hook` : "hook"} "${hook.command.slice(0, 80)}" (${hook.source})`,
      userOwned: userFiles.includes(resolve(where.cwd, hook.source)),
      matches: compileMatcher(hook.matcher) ?? (() => false),
      ...(hook.if !== undefined ? { condition: compileHookCondition(hook.if, where) } : {}),
      start: (input, signal) =>
        hook.type === "prompt" || hook.type === "agent"
          ? judgeHook(hook, input, hook.type === "agent" ? options.agentJudge : options.judge, signal)
          : hook.type === "http"
            ? runHttpHook({
                url: hook.command,
                input,
                ...(hook.headers ? { headers: hook.headers } : {}),
                ...(hook.allowedEnvVars ? { allowedEnvVars: hook.allowedEnvVars } : {}),
                env,
                timeoutMs: hook.timeoutMs,
                ...(signal ? { signal } : {}),
              })
            : runCommandHook({
                command: hook.command,
                input,
                cwd: options.cwd,
                env,
                timeoutMs: hook.timeoutMs,
                ...(signal ? { signal } : {}),
              }),
    });
  }
  for (const [event, list] of Object.entries(options.callbacks ?? {})) {
    for (const [i, item] of (list ?? []).entries()) {
      const callback = item.callback as (input: HookInput, context: { signal: AbortSignal }) => unknown;
      add(event as HookEventName, {
        label: `callback ${i + 1}`,
        userOwned: true,
        matches: compileMatcher(item.matcher ?? "") ?? (() => false),
        start: (input, signal) =>
          runCallback(callback, input, item.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS, signal),
      });
    }
  }

  const select = (event: HookEventName, toolName: string | undefined) =>
    (entries.get(event) ?? []).filter(
      (e) => (!TOOL_EVENTS.has(event) && !(event in MATCHED_FIELD)) || e.matches(toolName ?? ""),
    );

  return {
    commands: options.hooks,
    has: (event, toolName) => select(event, toolName).length > 0,
    listens: (event) => (entries.get(event) ?? []).length > 0,
    async run(event, fields, runOptions = {}) {
      // Tool events match the tool's name; SessionStart its source, PreCompact its trigger (as in Claude Code).
      const field = MATCHED_FIELD[event] ?? "tool_name";
      const toolName = (fields as Record<string, unknown>)[field] as string | undefined;
      let selected = select(event, toolName);
      const result: HookResult = { context: [] };
      if (selected.some((e) => e.condition)) {
        const f = fields as { tool_name?: string; tool_input?: Record<string, unknown> };
        const call: HookCall = {
          toolName: f.tool_name ?? "",
          input: f.tool_input ?? {},
          ...runOptions.call,
        };
        const keep = await Promise.all(selected.map((e) => (e.condition ? e.condition(call) : true)));
        selected = selected.filter((_, i) => keep[i]);
      }
      if (selected.length === 0) return result;
      const input = { ...options.base(), hook_event_name: event, ...fields } as unknown as HookInput;
      const outcomes = await Promise.all(
        selected.map((entry) =>
          entry
            .start(input, runOptions.signal)
            .catch((error: unknown): HookOutcome => ({ kind: "error", message: String(error) })),
        ),
      );
      const blocks: string[] = [];
      const notify = (kind: HookNotice["kind"], message: string) => {
        try {
          options.notify({ event, kind, message });
        } catch {
          // A notice that cannot be shown is not worth stopping for.
        }
      };
      for (const [i, outcome] of outcomes.entries()) {
        const label = (selected[i] as Entry).label;
        if (outcome.kind === "error") {
          notify("error", `${event} ${label} ${outcome.message}`);
          continue;
        }
        if (outcome.kind === "blocked") {
          if (event === "PermissionRequest")
            denyRequest(result, { behavior: "deny", message: outcome.message });
          if (event === "Elicitation" || event === "ElicitationResult")
            result.elicitation = { action: "decline" };
          if (BLOCKING.has(event)) blocks.push(outcome.message);
          else notify("error", `${event} ${label}: ${outcome.message}`);
          continue;
        }
        const { answer, text } = outcome;
        if (text !== undefined) {
          if (STDOUT_IS_CONTEXT.has(event)) result.context.push(text);
          else if (!answer.suppressOutput) notify("output", `${event} ${label}: ${text}`);
        }
        if (answer.systemMessage) notify("message", answer.systemMessage);
        if (answer.continue === false) result.stop = answer.stopReason ?? result.stop ?? "";
        const specific = answer.hookSpecificOutput ?? {};
        if (specific.additionalContext) result.context.push(specific.additionalContext);
        let permission = specific.permissionDecision;
        if (event === "PreToolUse") {
          // The older form: "approve" allows, "block" denies.
          if (!permission && answer.decision === "approve") permission = "allow";
          if (!permission && answer.decision === "block") permission = "deny";
          const why = specific.permissionDecisionReason ?? answer.reason;
          if (permission) {
            const rank = { allow: 0, ask: 1, deny: 2 };
            if (!result.permission || rank[permission] > rank[result.permission]) {
              result.permission = permission;
              if (why) result.permissionReason = why;
            }
            if (permission === "deny") blocks.push(why || `Denied by ${label}.`);
          }
          if (specific.updatedInput) result.updatedInput = specific.updatedInput;
        } else if (event === "Elicitation" || event === "ElicitationResult") {
          // A refusal (exit 2, decline, cancel) stands, as a PermissionRequest deny does: a later hook's accept
          // (a project's, after the user's own) does not overturn it.
          const refused = result.elicitation && result.elicitation.action !== "accept";
          if (specific.action && !refused)
            result.elicitation = {
              action: specific.action,
              ...(specific.content ? { content: specific.content } : {}),
            };
        } else if (event === "PermissionRequest") {
          if (specific.decision?.behavior === "deny") denyRequest(result, specific.decision);
          else if (specific.decision && result.decision?.behavior !== "deny")
            result.decision = withinReach(specific.decision, selected[i] as Entry, (m) => notify("error", m));
        } else if (answer.decision === "block" && BLOCKING.has(event)) {
          blocks.push(answer.reason || `Blocked by the ${event} ${label}.`);
        }
      }
      if (blocks.length > 0) result.blocked = blocks.join("\n");
      return result;
    },
  };
}

/**
 * A hook that is not the user's own (a project's settings file, a plugin's) answers for this project: its
 * `updatedPermissions` for the user's settings (`userSettings`, which every project reads) are dropped with a
 * notice — an allow rule or a mode there would carry one repository's say to every other. The rest stands, marked
 * `notTheUsers` (a local allow rule it saves is not remembered as the user's own).
 */
function withinReach(
  decision: PermissionRequestDecision,
  entry: Entry,
  notify: (message: string) => void,
): PermissionRequestDecision {
  if (entry.userOwned || decision.behavior !== "allow" || !decision.updatedPermissions) return decision;
  const kept = decision.updatedPermissions
    .filter((u) => u.destination !== "userSettings")
    .map((u) => ({ ...u, notTheUsers: true as const }));
  if (kept.length < decision.updatedPermissions.length)
    notify(
      `PermissionRequest ${entry.label}: its updatedPermissions for userSettings were not applied (only the user's own hooks may change ~/.mitsu/settings.json)`,
    );
  const { updatedPermissions: _, ...rest } = decision;
  return kept.length > 0 ? { ...rest, updatedPermissions: kept } : rest;
}

/** A PermissionRequest deny: wins over every allow; the messages of several denies are joined. */
function denyRequest(
  result: HookResult,
  deny: Extract<PermissionRequestDecision, { behavior: "deny" }>,
): void {
  const before = result.decision?.behavior === "deny" ? result.decision : undefined;
  const message = [before?.message, deny.message].filter(Boolean).join("\n");
  result.decision = {
    behavior: "deny",
    ...(message ? { message } : {}),
    ...(before?.interrupt || deny.interrupt ? { interrupt: true } : {}),
  };
}

/** Runs a library callback with the same guarantees as a command: a timeout, and a throw is an error. */
async function runCallback(
  callback: (input: HookInput, context: { signal: AbortSignal }) => unknown,
  input: HookInput,
  timeoutMs: number,
  outer: AbortSignal | undefined,
): Promise<HookOutcome> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  outer?.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HookOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ kind: "error", message: `timed out after ${timeoutMs / 1000} s` });
    }, timeoutMs);
  });
  try {
    const answered = (async (): Promise<HookOutcome> => {
      const value = await callback(input, { signal: controller.signal });
      if (value === undefined || value === null) return { kind: "answer", answer: {} };
      const answer = checkAnswer(value);
      return typeof answer === "string" ? { kind: "error", message: answer } : { kind: "answer", answer };
    })();
    return await Promise.race([answered, timeout]);
  } catch (error) {
    return { kind: "error", message: `threw: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener("abort", onAbort);
  }
}
