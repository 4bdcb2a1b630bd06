import { join } from "node:path";
import { editPermissions } from "./edit-permissions.js";
import { PERMISSION_MODES, type PermissionMode } from "./permission-mode.js";

/** Where a change of the permissions lasts: this session only, or a settings file (also applied now). */
export type PermissionUpdateDestination =
  | "session"
  | "cliArg"
  | "localSettings"
  | "projectSettings"
  | "userSettings";

/** A rule as Claude Code's updates spell it: `{ toolName: "Bash", ruleContent: "npm test:*" }`. */
export interface PermissionRuleValue {
  toolName: string;
  ruleContent?: string;
}

/**
 * A change of the permissions, in Claude Code's shape (`PermissionUpdate` of the Agent SDK; a PermissionRequest hook's
 * and a `canUseTool` answer's `updatedPermissions`): rules added, replaced (all of that behavior at the
 * destination) or removed; the mode set; working folders added or removed.
 */
export type PermissionUpdate = (
  | {
      type: "addRules" | "replaceRules" | "removeRules";
      rules: PermissionRuleValue[];
      behavior: "allow" | "deny" | "ask";
      destination: PermissionUpdateDestination;
    }
  | { type: "setMode"; mode: PermissionMode; destination: PermissionUpdateDestination }
  | {
      type: "addDirectories" | "removeDirectories";
      directories: string[];
      destination: PermissionUpdateDestination;
    }
) & {
  /**
   * Set by mitsu (not in Claude Code's shape) on the updates of a hook that is not the user's own (a project's, a
   * plugin's): a local allow rule it saves is not remembered as the user's, so it counts only while the folder is
   * trusted, as the project's other grants do.
   */
  notTheUsers?: true;
};

const DESTINATIONS = new Set(["session", "cliArg", "localSettings", "projectSettings", "userSettings"]);
const RULE_TYPES = new Set(["addRules", "replaceRules", "removeRules"]);
const BEHAVIORS = new Set(["allow", "deny", "ask"]);

/** The updates of `value` that have Claude Code's shape; each other entry is named in `errors` and left out. */
export function readPermissionUpdates(value: unknown): { updates: PermissionUpdate[]; errors: string[] } {
  const updates: PermissionUpdate[] = [];
  const errors: string[] = [];
  if (value === undefined) return { updates, errors };
  if (!Array.isArray(value)) return { updates, errors: ["updatedPermissions is not an array"] };
  value.forEach((entry, i) => {
    const update = readUpdate(entry);
    if (typeof update === "string") errors.push(`updatedPermissions[${i}]: ${update}`);
    else updates.push(update);
  });
  return { updates, errors };
}

function readUpdate(entry: unknown): PermissionUpdate | string {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return "not an object";
  const e = entry as Record<string, unknown>;
  const destination =
    typeof e.destination === "string" && DESTINATIONS.has(e.destination) ? e.destination : undefined;
  if (!destination) return `destination must be one of ${[...DESTINATIONS].join(", ")}`;
  const d = destination as PermissionUpdateDestination;
  if (typeof e.type === "string" && RULE_TYPES.has(e.type)) {
    if (typeof e.behavior !== "string" || !BEHAVIORS.has(e.behavior))
      return "behavior must be allow, deny or ask";
    if (!Array.isArray(e.rules)) return "rules is not an array";
    const rules: PermissionRuleValue[] = [];
    for (const rule of e.rules as unknown[]) {
      const r = rule as { toolName?: unknown; ruleContent?: unknown } | null;
      if (typeof r?.toolName !== "string" || r.toolName === "") return "a rule without a toolName";
      if (r.ruleContent !== undefined && typeof r.ruleContent !== "string")
        return "a ruleContent that is not a string";
      rules.push({
        toolName: r.toolName,
        ...(typeof r.ruleContent === "string" ? { ruleContent: r.ruleContent } : {}),
      });
    }
    return {
      type: e.type as "addRules",
      rules,
      behavior: e.behavior as "allow",
      destination: d,
    };
  }
  if (e.type === "setMode") {
    if (typeof e.mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(e.mode))
      return `mode must be one of ${PERMISSION_MODES.join(", ")}`;
    return { type: "setMode", mode: e.mode as PermissionMode, destination: d };
  }
  if (e.type === "addDirectories" || e.type === "removeDirectories") {
    if (!Array.isArray(e.directories) || !e.directories.every((x) => typeof x === "string" && x !== ""))
      return "directories is not a list of paths";
    return { type: e.type, directories: e.directories as string[], destination: d };
  }
  return "type must be addRules, replaceRules, removeRules, setMode, addDirectories or removeDirectories";
}

/** `Bash(npm test:*)` as `{ toolName: "Bash", ruleContent: "npm test:*" }` (the inverse of `ruleText`). */
export function ruleValue(text: string): PermissionRuleValue {
  const open = text.indexOf("(");
  return open === -1 || !text.endsWith(")")
    ? { toolName: text }
    : { toolName: text.slice(0, open), ruleContent: text.slice(open + 1, -1) };
}

/** `Bash(npm test:*)`: the rule as mitsu's settings write it. */
export function ruleText(rule: PermissionRuleValue): string {
  return rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`;
}

/** The settings file a destination names (mitsu's own files, as Claude Code's are under `.claude`); none for the session. */
export function destinationFile(
  destination: PermissionUpdateDestination,
  where: { cwd: string; home: string },
): string | undefined {
  switch (destination) {
    case "localSettings":
      return join(where.cwd, ".mitsu", "settings.local.json");
    case "projectSettings":
      return join(where.cwd, ".mitsu", "settings.json");
    case "userSettings":
      return join(where.home, ".mitsu", "settings.json");
    default:
      return undefined;
  }
}

/**
 * Writes one update into its settings file (`permissions.allow|deny|ask`, `defaultMode`, `additionalDirectories`),
 * keeping the file's other keys (see `editPermissions`). Throws when the file is not a JSON object.
 */
export async function saveUpdateToFile(file: string, update: PermissionUpdate): Promise<void> {
  await editPermissions(file, "the permission update was not saved", (permissions) => {
    const list = (key: string): unknown[] =>
      Array.isArray(permissions[key]) ? (permissions[key] as unknown[]) : [];
    switch (update.type) {
      case "addRules":
      case "replaceRules":
      case "removeRules": {
        const texts = update.rules.map(ruleText);
        const before = update.type === "replaceRules" ? [] : list(update.behavior);
        permissions[update.behavior] =
          update.type === "removeRules"
            ? before.filter((r) => !texts.includes(r as string))
            : [...before, ...texts.filter((t) => !before.includes(t))];
        break;
      }
      case "setMode":
        permissions.defaultMode = update.mode;
        break;
      case "addDirectories":
      case "removeDirectories": {
        const before = list("additionalDirectories");
        permissions.additionalDirectories =
          update.type === "removeDirectories"
            ? before.filter((d) => !update.directories.includes(d as string))
            : [...before, ...update.directories.filter((d) => !before.includes(d))];
        break;
      }
    }
  });
}
