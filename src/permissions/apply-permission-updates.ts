import type { FolderSet } from "../fs/folder-set.js";
import type { PermissionMode } from "./permission-mode.js";
import { type PermissionRule, parsePermissionRule } from "./permission-rule.js";
import { destinationFile, type PermissionUpdate, ruleText, saveUpdateToFile } from "./permission-update.js";
import { saveLocalAllowRules } from "./save-local-rules.js";

/** The checker's lists an update changes in place, and its mode. */
export interface UpdatablePermissions {
  cwd: string;
  home: string;
  deny: PermissionRule[];
  ask: PermissionRule[];
  allowRules: PermissionRule[];
  /** The workspace folders besides `cwd`, shared with the file tools: a change holds for their next call. */
  folders: FolderSet;
  setMode(mode: PermissionMode): void;
}

/**
 * Applies Claude Code's permission updates as Claude Code does: each holds at once (rules of its destination's
 * source added, replaced or removed; the mode set; working folders added or removed) and, for a settings
 * destination, is written to that file too (`localSettings` → `.mitsu/settings.local.json`, `projectSettings` →
 * `.mitsu/settings.json`, `userSettings` → `~/.mitsu/settings.json`). A rule that does not parse, or a file that
 * cannot be written, is a warning; the other updates still apply.
 */
export async function applyPermissionUpdates(
  updates: readonly PermissionUpdate[],
  target: UpdatablePermissions,
  warn: (message: string) => void = () => {},
): Promise<void> {
  const { cwd, home } = target;
  for (const update of updates) {
    const file = destinationFile(update.destination, { cwd, home });
    const source = file ?? "session";
    const origin = { source, root: update.destination === "userSettings" ? home : cwd, home };
    switch (update.type) {
      case "addRules":
      case "replaceRules":
      case "removeRules": {
        const list =
          update.behavior === "allow"
            ? target.allowRules
            : update.behavior === "deny"
              ? target.deny
              : target.ask;
        const texts = update.rules.map(ruleText);
        const ofSource = (rule: PermissionRule) => rule.origin.source === source;
        const drop = (keep: (rule: PermissionRule) => boolean) => {
          for (let i = list.length - 1; i >= 0; i--) if (!keep(list[i]!)) list.splice(i, 1);
        };
        if (update.type === "replaceRules") drop((rule) => !ofSource(rule));
        if (update.type === "removeRules") drop((rule) => !(ofSource(rule) && texts.includes(rule.text)));
        else
          for (const text of texts) {
            if (list.some((rule) => ofSource(rule) && rule.text === text)) continue;
            try {
              list.push(parsePermissionRule(text, origin, `updatedPermissions (${update.destination})`));
            } catch (error) {
              warn((error as Error).message);
            }
          }
        break;
      }
      case "setMode":
        target.setMode(update.mode);
        break;
      case "addDirectories":
      case "removeDirectories": {
        // Each folder's real path is taken now and kept (a link swapped later widens nothing); a folder that does
        // not exist is not added, and the update is not saved either.
        const missing: string[] = [];
        for (const dir of update.directories) {
          if (update.type === "removeDirectories") {
            await target.folders.remove(dir);
            continue;
          }
          try {
            const added = await target.folders.add(dir);
            if (added.warning) warn(`addDirectories: ${added.warning}`);
          } catch (error) {
            warn(`addDirectories: ${(error as Error).message}; the folder was not added`);
            missing.push(dir);
          }
        }
        if (missing.length === update.directories.length) continue;
        break;
      }
    }
    if (!file) continue;
    try {
      // An allow rule for the local settings is what "always" saves: kept out of git, and remembered as the user's.
      if (update.type === "addRules" && update.behavior === "allow" && update.destination === "localSettings")
        await saveLocalAllowRules(cwd, update.rules.map(ruleText), { home });
      else await saveUpdateToFile(file, update);
    } catch (error) {
      warn(`The permission update was not saved to ${file}: ${(error as Error).message}`);
    }
  }
}
