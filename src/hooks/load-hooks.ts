import { readFile, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { SettingsHooks } from "../permissions/load-settings.js";
import { parseJsonc } from "../permissions/parse-jsonc.js";
import { parsePermissionRule } from "../permissions/permission-rule.js";
import { hooksFingerprint, isHooksFileApproved } from "./hook-approvals.js";
import { HOOK_EVENTS, type HookEventName, TOOL_EVENTS } from "./hook-event.js";
import { DEFAULT_AGENT_HOOK_TIMEOUT_MS, DEFAULT_PROMPT_HOOK_TIMEOUT_MS } from "./run-prompt-hook.js";

/** Claude Code's default: a command hook that runs longer than this is killed. */
export const DEFAULT_HOOK_TIMEOUT_MS = 60_000;

/** Events Claude Code documents that mitsu does not fire (their hooks are named as such, not as unknown). */
const CLAUDE_CODE_ONLY_EVENTS = new Set([
  "WorktreeCreate",
  "WorktreeRemove",
  "ConfigChange",
  "TeammateIdle",
  "TaskCompleted",
]);

/** One hook from a settings file: `type: "command"` (the default) or `type: "http"`. */
export interface CommandHook {
  event: HookEventName;
  /** As written; empty matches every tool (see `matchesTool`). */
  matcher: string;
  /** The shell command; for an `http` hook, its URL. */
  command: string;
  /**
   * `http`: the event's JSON is POSTed to `command` (a URL); the response body is the hook's answer. `prompt`:
   * `command` is the prompt a small model judges the event by (`$ARGUMENTS` is the event's JSON). `agent`: the
   * same prompt, judged by a small sub-agent that may look at the workspace with Read, Grep and Glob.
   */
  type?: "http" | "prompt" | "agent";
  /** `prompt` and `agent`: the model that judges (default: the session's helper model). */
  model?: string;
  /** `http`: request headers; `$NAME` and `${NAME}` in them are replaced by the variables `allowedEnvVars` names. */
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  /**
   * Claude Code's `if`: a permission rule (`Bash(git *)`, `Edit(*.ts)`) the tool call must match for the hook to
   * run. Only on tool events (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest).
   */
  if?: string;
  timeoutMs: number;
  /** The settings file it comes from. */
  source: string;
  /** Added to the hook's environment (a plugin's `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA`). */
  env?: Record<string, string>;
}

/** A project settings file whose hooks wait for the user's approval. */
export interface UnapprovedHooksFile {
  file: string;
  /** The fingerprint to approve (see `approveHooksFile`). */
  sha256: string;
  hooks: CommandHook[];
}

export interface LoadedHooks {
  /** The hooks that run: the user's, and those of approved project files. */
  hooks: CommandHook[];
  /** Project files with hooks not (or no longer) approved: their hooks do not run. */
  unapproved: UnapprovedHooksFile[];
  /** Entries that cannot be used, each naming its file; the rest of the file still counts. */
  warnings: string[];
}

export interface LoadHooksOptions {
  cwd: string;
  home?: string;
  /**
   * Whether the user trusts the project folder (see the permissions' trust store). `false`: no project file's
   * hooks run, approved or not; they are all listed in `unapproved`. Default: approval alone decides.
   */
  trusted?: boolean;
  /**
   * The settings files' `hooks` values as `loadSettings` read them (`settings.hookFiles`, which also honours
   * `settingSources`): given, no file is read again here. Without it, every settings file is read.
   */
  files?: readonly SettingsHooks[];
}

/**
 * Reads `hooks` from every settings file, in Claude Code's format: the user's (`~/.mitsu/settings.json`,
 * `~/.claude/settings.json`) always run; the project's (`.mitsu/` and `.claude/`, `settings.json` and
 * `settings.local.json`) arrive with a cloned repository, so they run only once the user approved that file's
 * hooks as they are now. A file that is missing or not JSON adds no hooks (the latter a warning).
 */
export async function loadHooks(options: LoadHooksOptions): Promise<LoadedHooks> {
  const home = resolve(options.home ?? homedir());
  const cwd = resolve(options.cwd);
  const user = [join(home, ".mitsu", "settings.json"), join(home, ".claude", "settings.json")];
  const project = [".mitsu", ".claude"].flatMap((dir) => [
    join(cwd, dir, "settings.json"),
    join(cwd, dir, "settings.local.json"),
  ]);
  const result: LoadedHooks = { hooks: [], unapproved: [], warnings: [] };
  const seen = new Set<string>();
  for (const [file, fromProject] of [
    ...user.map((f) => [f, false] as const),
    ...project.map((f) => [f, true] as const),
  ]) {
    const given = options.files?.find((read) => read.file === file);
    if (options.files && !given) continue;
    const real = await realpath(file).catch(() => undefined);
    // A project inside the home folder may name the same file twice (~/.mitsu/settings.json); read it once.
    if (!real || seen.has(real)) continue;
    seen.add(real);
    const raw = given ? given.hooks : await readHooks(real, file, result.warnings);
    if (raw === undefined) continue;
    const hooks = parseHooks(raw, file, result.warnings);
    if (hooks.length === 0) continue;
    const isProjectFile = fromProject && !user.includes(file);
    if (!isProjectFile) {
      result.hooks.push(...hooks);
      continue;
    }
    const sha256 = hooksFingerprint(raw);
    if (options.trusted !== false && (await isHooksFileApproved(home, real, sha256)))
      result.hooks.push(...hooks);
    else result.unapproved.push({ file: real, sha256, hooks });
  }
  return result;
}

/** A settings file's `hooks` value: undefined when it has none, or cannot be read (a warning). */
async function readHooks(real: string, file: string, warnings: string[]): Promise<unknown> {
  try {
    // JSONC, as the settings are read (see loadSettings).
    const value = parseJsonc(await readFile(real, "utf8"));
    return value !== null && typeof value === "object" ? (value as { hooks?: unknown }).hooks : undefined;
  } catch (error) {
    warnings.push(`${file}: cannot read its hooks: ${(error as Error).message}`);
    return undefined;
  }
}

/** The command hooks of one file's `hooks` value; what cannot be used is a warning naming the file. */
export function parseHooks(raw: unknown, file: string, warnings: string[]): CommandHook[] {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    warnings.push(`${file}: "hooks" is not an object; ignored`);
    return [];
  }
  const hooks: CommandHook[] = [];
  for (const [event, groups] of Object.entries(raw as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      warnings.push(
        CLAUDE_CODE_ONLY_EVENTS.has(event)
          ? `${file}: hooks.${event}: mitsu does not fire this Claude Code event yet; its hooks do not run`
          : `${file}: unknown hook event "${event}"; ignored`,
      );
      continue;
    }
    if (!Array.isArray(groups)) {
      warnings.push(`${file}: hooks.${event} is not a list; ignored`);
      continue;
    }
    for (const group of groups as unknown[]) {
      const g = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
      const matcher = typeof g.matcher === "string" ? g.matcher : "";
      if (matcher && compileMatcher(matcher) === undefined) {
        warnings.push(`${file}: hooks.${event} matcher "${matcher}" is not a valid pattern; ignored`);
        continue;
      }
      if (!Array.isArray(g.hooks)) {
        warnings.push(`${file}: a hooks.${event} entry has no "hooks" list; ignored`);
        continue;
      }
      for (const hook of g.hooks as unknown[]) {
        const parsed = parseHook(hook, event as HookEventName, file, warnings);
        if (parsed) hooks.push({ ...parsed, matcher });
      }
    }
  }
  return hooks;
}

/**
 * The matcher as Claude Code reads it: empty or `*` matches every tool; a plain name (letters, digits, `_`,
 * `|` between names) matches those names exactly; anything else is a regular expression over the whole name
 * (`Edit|Write`, `mcp__memory__.*`). Undefined when it is not a valid expression.
 */
export function compileMatcher(matcher: string): ((toolName: string) => boolean) | undefined {
  if (matcher === "" || matcher === "*") return () => true;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) {
    const names = new Set(matcher.split("|"));
    return (name) => names.has(name);
  }
  try {
    const pattern = new RegExp(`^(?:${matcher})$`);
    return (name) => pattern.test(name);
  } catch {
    return undefined;
  }
}

/** One entry of a group's `hooks` list; undefined (with a warning) when it cannot run. */
function parseHook(
  hook: unknown,
  event: HookEventName,
  file: string,
  warnings: string[],
): Omit<CommandHook, "matcher"> | undefined {
  const h = (hook ?? {}) as Record<string, unknown>;
  const type = h.type ?? "command";
  if (type !== "command" && type !== "http" && type !== "prompt" && type !== "agent") {
    warnings.push(
      `${file}: hooks.${event}: only type "command", "http", "prompt" and "agent" hooks run; one of type ${JSON.stringify(h.type)} ignored`,
    );
    return undefined;
  }
  const field = type === "http" ? "url" : type === "agent" ? "prompt" : type;
  const target = h[field];
  if (typeof target !== "string" || target.trim() === "") {
    warnings.push(`${file}: hooks.${event}: a ${type} hook without a ${field}; ignored`);
    return undefined;
  }
  if (type === "http" && !/^https?:\/\//i.test(target)) {
    warnings.push(
      `${file}: hooks.${event}: the http hook's url ${JSON.stringify(target)} is not http(s); ignored`,
    );
    return undefined;
  }
  let condition: string | undefined;
  if (h.if !== undefined) {
    const problem = checkIfRule(h.if, event);
    if (problem) {
      warnings.push(`${file}: hooks.${event}: ${problem}; that hook ignored`);
      return undefined;
    }
    condition = h.if as string;
  }
  const seconds = typeof h.timeout === "number" && h.timeout > 0 ? h.timeout : undefined;
  const parsed: Omit<CommandHook, "matcher"> = {
    event,
    command: target,
    timeoutMs:
      seconds !== undefined
        ? Math.min(seconds * 1000, 2_147_000_000)
        : type === "prompt"
          ? DEFAULT_PROMPT_HOOK_TIMEOUT_MS
          : type === "agent"
            ? DEFAULT_AGENT_HOOK_TIMEOUT_MS
            : DEFAULT_HOOK_TIMEOUT_MS,
    source: file,
    ...(condition !== undefined ? { if: condition } : {}),
  };
  if (type === "prompt" || type === "agent") {
    parsed.type = type;
    if (typeof h.model === "string" && h.model.trim() !== "") parsed.model = h.model;
  }
  if (type === "http") {
    parsed.type = "http";
    if (h.headers !== null && typeof h.headers === "object" && !Array.isArray(h.headers)) {
      parsed.headers = Object.fromEntries(
        Object.entries(h.headers as Record<string, unknown>).filter(
          (entry): entry is [string, string] => typeof entry[1] === "string",
        ),
      );
    }
    if (Array.isArray(h.allowedEnvVars))
      parsed.allowedEnvVars = h.allowedEnvVars.filter((v): v is string => typeof v === "string");
  }
  return parsed;
}

/** Why an `if` cannot be used (Claude Code: on an event that is not a tool event, the hook never runs). */
function checkIfRule(value: unknown, event: HookEventName): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return '"if" is not a permission rule';
  if (!TOOL_EVENTS.has(event))
    return `"if" applies to tool events only, so a ${event} hook with one never runs`;
  try {
    parsePermissionRule(value, { source: "session", root: "/", home: "/" }, "a hook's if");
  } catch (error) {
    return `"if" ${JSON.stringify(value)} is not a permission rule (${(error as Error).message})`;
  }
  return undefined;
}
