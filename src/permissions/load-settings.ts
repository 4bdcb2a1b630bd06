import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { jsonErrorPlace } from "./json-error-place.js";
import { readOwnRules } from "./own-rules.js";
import { PERMISSION_MODES, type PermissionMode } from "./permission-mode.js";
import {
  type PermissionRule,
  PermissionRuleError,
  parsePermissionRule,
  type RuleOrigin,
} from "./permission-rule.js";
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
   * The files' `env` keys, later files over earlier ones. A project's file (one in the repository) may not set a
   * variable that routes credentials or traffic (`*_BASE_URL`, `*_API_KEY`, `*_AUTH_TOKEN`, proxies): a cloned
   * repository must not send the user's key to its own server. Such keys are left out and named in `ignoredEnv`.
   */
  env: Record<string, string>;
  /** `"<file>: <KEY>"` for each project `env` key left out (see `env`). */
  ignoredEnv: string[];
  /** The most specific file's `model`, if any says one. */
  model?: string;
}

/** Variables a project's settings may not set (see `LoadedSettings.env`). */
const ROUTING_ENV = /(_BASE_URL|_API_KEY|_AUTH_TOKEN|_PROXY|^NODE_OPTIONS|^PATH)$/i;

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
}

/**
 * Reads, in this order (a later file wins where two say the same thing; rules of all of them apply):
 * `~/.claude/settings.json`, `~/.mitsu/settings.json` (user), `.claude/settings.json`, `.mitsu/settings.json`
 * (project, shared in git), `.claude/settings.local.json`, `.mitsu/settings.local.json` (project, untracked).
 * Claude Code's files are read so that an existing set-up works unchanged; mitsu's own file of each level wins.
 * A missing file is skipped; a file that exists but cannot be used throws a `SettingsError` naming it, since
 * silently dropping someone's deny rules would be worse than stopping. Read here: `permissions`, `env`, `model`.
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
  ];
  const result: LoadedSettings = {
    rules: { allow: [], ask: [], deny: [] },
    additionalDirectories: [],
    files: [],
    ignored: [],
    sandbox: {},
    warnings: [],
    env: {},
    ignoredEnv: [],
  };
  for (const { file, root, user, kind } of sources) {
    const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw new SettingsError(`Cannot read settings file ${file}: ${error.message}`);
    });
    // When the project is the home folder, its settings.json is the user file: read it once.
    if (text === undefined || result.files.includes(file)) continue;
    result.files.push(file);
    const parsed = parseSettings(text, file);
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
        for (const key of ["autoAllowBashIfSandboxed", "allowNetwork"]) {
          if (section[key] === true) result.ignored.push(`sandbox.${key} true in ${file}`);
        }
      }
    } catch (error) {
      throw new SettingsError((error as Error).message);
    }
    // Rules mitsu saved here on the user's own "always" are the user's, trusted folder or not.
    const own = !grants && kind === "local" ? await readOwnRules(file, home) : undefined;
    applySettings(parsed.permissions, { source: file, root, home }, result, grants, own);
    applyEnvAndModel(parsed.top, file, user || root === home, result);
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

function applyEnvAndModel(
  top: Record<string, unknown>,
  file: string,
  user: boolean,
  into: LoadedSettings,
): void {
  if (top.env !== undefined) {
    if (!isObject(top.env) || Object.values(top.env).some((v) => typeof v !== "string")) {
      throw new SettingsError(`"env" in settings file ${file} must be an object of strings.`);
    }
    for (const [key, value] of Object.entries(top.env as Record<string, string>)) {
      if (!user && ROUTING_ENV.test(key)) into.ignoredEnv.push(`${file}: ${key}`);
      else into.env[key] = value;
    }
  }
  if (top.model !== undefined) {
    if (typeof top.model !== "string" || top.model.trim() === "") {
      throw new SettingsError(`"model" in settings file ${file} must be a model name.`);
    }
    into.model = top.model;
  }
}

function parseSettings(
  text: string,
  file: string,
): { top: Record<string, unknown>; permissions: PermissionsSection | undefined; sandbox: unknown } {
  let value: unknown;
  try {
    // Editors on Windows save JSON with a byte order mark, which JSON.parse rejects.
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    const place = jsonErrorPlace(text.replace(/^\uFEFF/, ""));
    throw new SettingsError(
      `Invalid JSON in settings file ${file}${place ? ` at ${place}` : `: ${(error as Error).message}`}`,
    );
  }
  if (!isObject(value)) throw new SettingsError(`Settings file ${file} must contain a JSON object.`);
  if (value.permissions === undefined) return { top: value, permissions: undefined, sandbox: value.sandbox };
  if (!isObject(value.permissions)) {
    throw new SettingsError(`"permissions" in settings file ${file} must be an object.`);
  }
  return { top: value, permissions: value.permissions as PermissionsSection, sandbox: value.sandbox };
}

function applySettings(
  section: PermissionsSection | undefined,
  origin: RuleOrigin,
  into: LoadedSettings,
  grants: boolean,
  own?: ReadonlySet<string>,
): void {
  if (!section) return;
  const file = origin.source;
  for (const behavior of ["allow", "ask", "deny"] as const) {
    const list = stringList(section[behavior], `permissions.${behavior}`, file);
    list.forEach((text, index) => {
      try {
        const rule = parsePermissionRule(text, origin, `permissions.${behavior}[${index}] in ${file}`);
        if (behavior === "allow" && !grants && !own?.has(text)) {
          into.ignored.push(`permissions.allow ${JSON.stringify(rule.text)} in ${file}`);
          return;
        }
        into.rules[behavior].push(rule);
      } catch (error) {
        if (error instanceof PermissionRuleError) throw new SettingsError(error.message);
        throw error;
      }
    });
  }
  if (section.defaultMode !== undefined) {
    const mode = section.defaultMode;
    if (typeof mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(mode)) {
      throw new SettingsError(
        `permissions.defaultMode in settings file ${file} must be one of ${PERMISSION_MODES.join(", ")}; got ${JSON.stringify(mode)}.`,
      );
    }
    if (!grants) into.ignored.push(`permissions.defaultMode ${JSON.stringify(mode)} in ${file}`);
    else {
      into.defaultMode = mode as PermissionMode;
      into.defaultModeSource = file;
    }
  }
  for (const folder of stringList(section.additionalDirectories, "permissions.additionalDirectories", file)) {
    if (!grants) {
      into.ignored.push(`permissions.additionalDirectories ${JSON.stringify(folder)} in ${file}`);
      continue;
    }
    const expanded = folder === "~" || folder.startsWith("~/") ? join(origin.home, folder.slice(2)) : folder;
    into.additionalDirectories.push(resolve(origin.root, expanded));
  }
}

function stringList(value: unknown, key: string, file: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw new SettingsError(`${key} in settings file ${file} must be an array of strings.`);
  }
  return value as string[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
