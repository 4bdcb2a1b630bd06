import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { readOwnRules } from "./own-rules.js";
import { JsoncError, lineOf, parseJsonc } from "./parse-jsonc.js";
import {
  CLAUDE_ONLY_MODES,
  fromClaudeMode,
  PERMISSION_MODES,
  type PermissionMode,
} from "./permission-mode.js";
import {
  type PermissionRule,
  PermissionRuleError,
  parsePermissionRule,
  type RuleOrigin,
} from "./permission-rule.js";
import { emptyPluginSettings, type PluginSettings, readPluginKeys } from "./plugin-keys.js";
import { refusedProjectEnv } from "./refused-project-env.js";
import { applySandboxSection, type SandboxSettings } from "./sandbox-settings.js";

/** Rules from every settings file, in order user, project, local (all of them apply; deny wins over ask over allow). */
export interface LoadedRules {
  allow: PermissionRule[];
  ask: PermissionRule[];
  deny: PermissionRule[];
}

export interface LoadedSettings {
  rules: LoadedRules;
  /** The most specific file's `defaultMode` (local over project over user), if any says one. */
  defaultMode?: PermissionMode;
  /** The file that set `defaultMode`. */
  defaultModeSource?: string;
  /** `additionalDirectories` of every file, resolved against the file's project root (or home). */
  additionalDirectories: string[];
  /** The settings files that exist and were read. */
  files: string[];
  /** The `sandbox` sections merged (see `applySandboxSection`). */
  sandbox: SandboxSettings;
  /** Settings that were read but ignored, and why (for the terminal). */
  warnings: string[];
  /**
   * What the project's own files would grant but, the folder not being trusted, do not: one line each
   * (`permissions.allow "Bash(npm test:*)" in /p/.mitsu/settings.json`). Empty when trusted or nothing.
   */
  ignored: string[];
  /**
   * The files' `env` keys, later files over earlier ones. A project's file (one in the repository) counts only in a
   * trusted folder (untrusted, its keys are listed in `ignored`, so the trust question names them), and never for a
   * variable that routes credentials or traffic (`*_BASE_URL`, `*_API_KEY`, `*_AUTH_TOKEN`, proxies) or makes
   * programs run code at start-up (`LD_*`, `BASH_ENV`, `GIT_*`, `MITSU_*`, `HOME`, …: see `refusedProjectEnv`).
   * Those are left out, named in `ignoredEnv` and warned about in `warnings`.
   */
  env: Record<string, string>;
  /** `"<file>: <KEY>"` for each project `env` key refused whatever the trust (see `env`). */
  ignoredEnv: string[];
  /**
   * The keys of `env` whose values come from a project's file (a trusted folder's): what a pull can change. An MCP
   * approval's fingerprint always expands them (see `mcpServerFingerprint`).
   */
  projectEnvKeys: string[];
  /** The most specific file's `model`, if any says one (a project's file only in a trusted folder). */
  model?: string;
  /**
   * `enabledPlugins` and `extraKnownMarketplaces`, for the plugin loader (read here, so the files are read once). A
   * project's are read whatever the trust: they turn plugins off or suggest them, never on.
   */
  plugins: PluginSettings;
  /**
   * The most specific file's `outputStyle` (local over project over user) and that file; a style is text for the
   * system prompt, so a project's counts whatever the trust, as Claude Code reads it.
   */
  outputStyle?: { name: string; file: string };
  /** Each file's `hooks` value as read here (whatever the trust), for `loadHooks`: the files are read once. */
  hookFiles: SettingsHooks[];
}

/** A settings file's `hooks` value, unparsed. */
export interface SettingsHooks {
  file: string;
  hooks: unknown;
}

/** A settings file that cannot be used: not JSON, or not the expected shape. The message names the file. */
export class SettingsError extends Error {
  override name = "SettingsError";
}

export interface LoadSettingsOptions {
  /** The project root: `.mitsu/settings.json` and `.mitsu/settings.local.json` are read there. */
  cwd: string;
  /** The home folder for `~/.mitsu/settings.json` and `~/` in rules. Default `os.homedir()`. */
  home?: string;
  /**
   * Whether the user trusts the project folder. Untrusted (the default), the project's files
   * (`.mitsu/settings.json`, `.mitsu/settings.local.json`) still restrict (deny and ask rules) but grant
   * nothing: their allow rules, `defaultMode` and `additionalDirectories` are left out and listed in
   * `ignored`. A cloned repository must not be able to grant itself permissions.
   */
  trusted?: boolean;
  /** Only the files of these levels are read (the Claude Agent SDK's `settingSources`); default all three. */
  sources?: ReadonlyArray<"user" | "project" | "local">;
}

/**
 * Reads, in this order (a later file wins where two say the same thing; rules of all of them apply):
 * `~/.claude/settings.json`, `~/.mitsu/settings.json` (user), `.claude/settings.json`, `.mitsu/settings.json`
 * (project, shared in git), `.claude/settings.local.json`, `.mitsu/settings.local.json` (project, untracked).
 * Claude Code's files are read so that an existing set-up works unchanged; mitsu's own file of each level wins.
 * A missing file is skipped. As in Claude Code, a settings file never stops mitsu: it is read as JSON with comments
 * (JSONC), and a file that cannot be read, or an entry that cannot be used (a malformed rule, a key of the wrong
 * shape), is left out with one warning naming the file, the line and the key — never silently. Only a malformed
 * `sandbox` section still throws a `SettingsError` (the user asked for containment; mitsu does not guess).
 * Read here: `permissions`, `env`, `model`, and the plugin keys (`enabledPlugins`, `extraKnownMarketplaces`).
 * What the project's files grant counts only when `trusted` (see `LoadSettingsOptions.trusted`).
 */
export async function loadSettings(options: LoadSettingsOptions): Promise<LoadedSettings> {
  const home = resolve(options.home ?? homedir());
  const cwd = resolve(options.cwd);
  const sources = [
    { file: join(home, ".claude", "settings.json"), root: home, user: true, kind: "user" as const },
    { file: join(home, ".mitsu", "settings.json"), root: home, user: true, kind: "user" as const },
    { file: join(cwd, ".claude", "settings.json"), root: cwd, user: false, kind: "project" as const },
    { file: join(cwd, ".mitsu", "settings.json"), root: cwd, user: false, kind: "project" as const },
    { file: join(cwd, ".claude", "settings.local.json"), root: cwd, user: false, kind: "local" as const },
    { file: join(cwd, ".mitsu", "settings.local.json"), root: cwd, user: false, kind: "local" as const },
  ].filter((source) => options.sources === undefined || options.sources.includes(source.kind));
  const result: LoadedSettings = {
    rules: { allow: [], ask: [], deny: [] },
    additionalDirectories: [],
    files: [],
    ignored: [],
    sandbox: {},
    warnings: [],
    env: {},
    ignoredEnv: [],
    projectEnvKeys: [],
    plugins: emptyPluginSettings(),
    hookFiles: [],
  };
  for (const { file, root, user, kind } of sources) {
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT" && error.code !== "ENOTDIR") {
        result.warnings.push(
          `${file}: cannot be read (${error.code ?? error.message}); its settings are ignored`,
        );
      }
      return undefined;
    });
    // When the project is the home folder, its settings.json is the user file: read it once.
    if (text === undefined || result.files.includes(file)) continue;
    result.files.push(file);
    const parsed = parseSettings(text, file, result.warnings);
    if (parsed === undefined) continue;
    // The home folder as the project: its files are the user's own.
    const grants = user || root === home || options.trusted === true;
    try {
      if (grants || kind !== "local") {
        applySandboxSection(parsed.sandbox, file, kind, result.sandbox, result.warnings);
      } else {
        // An untrusted folder's local file is read like its shared one: it may turn the sandbox on, not grant
        // itself auto-allow or the network. What it would grant is listed with the other ignored grants.
        const refused: string[] = [];
        applySandboxSection(parsed.sandbox, file, "project", result.sandbox, refused);
        const section = (parsed.sandbox ?? {}) as Record<string, unknown>;
        for (const key of ["autoAllowBashIfSandboxed", "allowNetwork", "allowUnixSockets"]) {
          if (section[key] === true) result.ignored.push(`sandbox.${key} true in ${file}`);
        }
      }
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
    // Rules mitsu saved here on the user's own "always" are the user's, trusted folder or not.
    const own = !grants && kind === "local" ? await readOwnRules(file, home) : undefined;
    const at = (key: string, needle?: string) => settingsPlace(text, file, key, needle);
    applySettings(parsed.permissions, { source: file, root, home }, result, grants, at, own);
    applyEnvAndModel(parsed.top, file, user || root === home, grants, result, at);
    readPluginKeys(parsed.top, file, user, result.plugins);
    if (parsed.top.hooks !== undefined) result.hookFiles.push({ file, hooks: parsed.top.hooks });
    const style = parsed.top.outputStyle;
    if (typeof style === "string" && style.trim() !== "") result.outputStyle = { name: style.trim(), file };
  }
  return result;
}

interface PermissionsSection {
  allow?: unknown;
  ask?: unknown;
  deny?: unknown;
  defaultMode?: unknown;
  additionalDirectories?: unknown;
}

/** `<file>:<line>: <key>` — where a warning about a settings entry points (the line where `needle` or the key is). */
type Place = (key: string, needle?: string) => string;

function settingsPlace(text: string, file: string, key: string, needle?: string): string {
  const last =
    key
      .replace(/\[\d+\]$/, "")
      .split(".")
      .pop() ?? key;
  const keyLine = lineOf(text, JSON.stringify(last));
  const line = (needle === undefined ? undefined : lineOf(text, needle)) ?? keyLine;
  return `${file}${line === undefined ? "" : `:${line}`}: ${key}`;
}

/**
 * `env` and `model`. A project's file (`user` false) sets neither in an untrusted folder (`grants` false): both are
 * listed in `ignored` (the trust question names them) — a clone's `env` would reach mitsu's own processes (git,
 * hooks, MCP servers) and its `model` would send the user's key and code to the provider it picks.
 */
function applyEnvAndModel(
  top: Record<string, unknown>,
  file: string,
  user: boolean,
  grants: boolean,
  into: LoadedSettings,
  at: Place,
): void {
  if (top.env !== undefined) {
    if (!isObject(top.env)) {
      into.warnings.push(`${at("env")} must be an object of strings; ignored`);
    } else {
      for (const [key, raw] of Object.entries(top.env)) {
        // Claude Code takes `"MAX_THINKING_TOKENS": 8000` and `"DISABLE_TELEMETRY": true` as their text.
        if (typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean") {
          into.warnings.push(`${at(`env.${key}`)} must be text or a number; skipped`);
          continue;
        }
        const value = String(raw);
        // No process can be started with a NUL in its environment: every child (the start-up git first) would throw.
        if (key.includes("\0") || value.includes("\0")) {
          into.warnings.push(
            `${at(`env.${key}`)} holds a NUL character, which no environment can carry; skipped`,
          );
          continue;
        }
        const refused = user ? undefined : refusedProjectEnv(key);
        if (refused) {
          into.ignoredEnv.push(`${file}: ${key}`);
          into.warnings.push(`${file}: ${key} is ignored: ${refused} (set it in ~/.mitsu/settings.json)`);
        } else if (!user && !grants) {
          into.ignored.push(`env ${key}=${JSON.stringify(shortened(value))} in ${file}`);
        } else {
          into.env[key] = value;
          if (!user && !into.projectEnvKeys.includes(key)) into.projectEnvKeys.push(key);
        }
      }
    }
  }
  if (top.model !== undefined) {
    if (typeof top.model !== "string" || top.model.trim() === "") {
      into.warnings.push(`${at("model")} must be a model name; ignored`);
    } else if (!user && !grants) {
      into.ignored.push(`model ${JSON.stringify(top.model)} in ${file}`);
    } else {
      into.model = top.model;
    }
  }
}

/** A value as the trust question shows it: whole up to 120 characters. */
function shortened(value: string): string {
  return value.length <= 120 ? value : `${value.slice(0, 117)}...`;
}

function parseSettings(
  text: string,
  file: string,
  warnings: string[],
):
  | { top: Record<string, unknown>; permissions: PermissionsSection | undefined; sandbox: unknown }
  | undefined {
  let value: unknown;
  try {
    // JSONC, as Claude Code reads it: comments and trailing commas are fine, and so is a byte order mark.
    value = parseJsonc(text);
  } catch (error) {
    const line = error instanceof JsoncError && error.line !== undefined ? `:${error.line}` : "";
    warnings.push(
      `${file}${line}: invalid JSON (${(error as Error).message}); this file's settings are ignored`,
    );
    return undefined;
  }
  if (!isObject(value)) {
    warnings.push(`${file}: must contain a JSON object; this file's settings are ignored`);
    return undefined;
  }
  if (value.permissions === undefined) return { top: value, permissions: undefined, sandbox: value.sandbox };
  if (!isObject(value.permissions)) {
    warnings.push(`${settingsPlace(text, file, "permissions")} must be an object; ignored`);
    return { top: value, permissions: undefined, sandbox: value.sandbox };
  }
  return { top: value, permissions: value.permissions as PermissionsSection, sandbox: value.sandbox };
}

function applySettings(
  section: PermissionsSection | undefined,
  origin: RuleOrigin,
  into: LoadedSettings,
  grants: boolean,
  at: Place,
  own?: ReadonlySet<string>,
): void {
  if (!section) return;
  const file = origin.source;
  for (const behavior of ["allow", "ask", "deny"] as const) {
    const list = stringList(section[behavior], `permissions.${behavior}`, at, into.warnings);
    list.forEach((text, index) => {
      const key = `permissions.${behavior}[${index}]`;
      if (typeof text !== "string") {
        into.warnings.push(`${at(key)} is not a rule (a string); skipped`);
        return;
      }
      try {
        const rule = parsePermissionRule(text, origin, `${key} in ${file}`);
        if (behavior === "allow" && !grants && !own?.has(text)) {
          into.ignored.push(`permissions.allow ${JSON.stringify(rule.text)} in ${file}`);
          return;
        }
        into.rules[behavior].push(rule);
      } catch (error) {
        if (!(error instanceof PermissionRuleError)) throw error;
        // One bad rule costs only itself, as in Claude Code: the file's other rules still apply.
        into.warnings.push(`${at(key, JSON.stringify(text))}: ${error.message}; skipped`);
      }
    });
  }
  if (section.defaultMode !== undefined) {
    const written = section.defaultMode;
    const mode = typeof written === "string" ? CLAUDE_MODES[written] : undefined;
    if (typeof written === "string" && mode !== undefined && mode !== written) {
      into.warnings.push(
        `${at("permissions.defaultMode")} ${JSON.stringify(written)} is Claude Code's; mitsu has no such mode and uses "${mode}" (it asks where that mode would decide alone)`,
      );
    }
    if (mode === undefined) {
      into.warnings.push(
        `${at("permissions.defaultMode")} must be one of ${PERMISSION_MODES.join(", ")}; got ${JSON.stringify(written)}; ignored`,
      );
    } else if (!grants) into.ignored.push(`permissions.defaultMode ${JSON.stringify(written)} in ${file}`);
    else {
      into.defaultMode = mode;
      into.defaultModeSource = file;
    }
  }
  for (const folder of stringList(
    section.additionalDirectories,
    "permissions.additionalDirectories",
    at,
    into.warnings,
  )) {
    if (typeof folder !== "string") continue;
    if (!grants) {
      into.ignored.push(`permissions.additionalDirectories ${JSON.stringify(folder)} in ${file}`);
      continue;
    }
    const expanded = folder === "~" || folder.startsWith("~/") ? join(origin.home, folder.slice(2)) : folder;
    into.additionalDirectories.push(resolve(origin.root, expanded));
  }
}

/**
 * Claude Code's permission modes as mitsu's: its own four are themselves; `dontAsk` (deny what is not allowed)
 * and `auto` (a classifier decides) have no mitsu equivalent and become `default`, which asks instead — never a
 * mode that grants more than the file meant.
 */
const CLAUDE_MODES: Record<string, PermissionMode> = Object.fromEntries(
  [...PERMISSION_MODES, ...CLAUDE_ONLY_MODES].map((mode) => [mode, fromClaudeMode(mode)!]),
);

/** A list setting's items (each checked by the caller); a value that is not a list is one warning. */
function stringList(value: unknown, key: string, at: Place, warnings: string[]): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    warnings.push(`${at(key)} must be an array of strings; ignored`);
    return [];
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
