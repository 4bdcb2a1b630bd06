import { dirname } from "node:path";
import type { FolderSet } from "../fs/folder-set.js";
import { absolutePath, isInside, resolveRealPath } from "../fs/real-path.js";
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
    let saved: PermissionUpdate = update;
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
        const parsed: string[] = [];
        const ofSource = (rule: PermissionRule) => rule.origin.source === source;
        const drop = (keep: (rule: PermissionRule) => boolean) => {
          for (let i = list.length - 1; i >= 0; i--) if (!keep(list[i]!)) list.splice(i, 1);
        };
        if (update.type === "replaceRules") drop((rule) => !ofSource(rule));
        if (update.type === "removeRules") drop((rule) => !(ofSource(rule) && texts.includes(rule.text)));
        else
          for (const text of texts) {
            if (list.some((rule) => ofSource(rule) && rule.text === text)) {
              parsed.push(text);
              continue;
            }
            try {
              list.push(parsePermissionRule(text, origin, `updatedPermissions (${update.destination})`));
              parsed.push(text);
            } catch (error) {
              warn((error as Error).message);
            }
          }
        // What did not parse is not saved either: the file would warn about it at every start.
        if (update.type !== "removeRules")
          saved = { ...update, rules: update.rules.filter((rule) => parsed.includes(ruleText(rule))) };
        break;
      }
      case "setMode":
        target.setMode(update.mode);
        break;
      case "addDirectories":
      case "removeDirectories": {
        // As the settings read them (`~/` is the home folder); the user's file gets them whole, as it is read
        // against the home folder, not this project.
        const dirs = update.directories.map((dir) => absolutePath(dir, cwd, home));
        // Each folder's real path is taken now and kept (a link swapped later widens nothing); a folder that does
        // not exist is not added, and not saved either.
        const kept: number[] = [];
        for (const [i, dir] of dirs.entries()) {
          if (update.type === "removeDirectories") {
            await target.folders.remove(dir);
            kept.push(i);
            continue;
          }
          try {
            const added = await target.folders.add(dir);
            if (added.warning) warn(`addDirectories: ${added.warning}`);
            kept.push(i);
          } catch (error) {
            warn(`addDirectories: ${(error as Error).message}; the folder was not added`);
          }
        }
        if (kept.length === 0) continue;
        const named = update.destination === "userSettings" ? dirs : update.directories;
        saved = { ...update, directories: kept.map((i) => named[i] as string) };
        break;
      }
    }
    if (!file) continue;
    const outside = update.destination === "userSettings" ? undefined : await linkedOut(file, cwd);
    if (outside) {
      // A project's .mitsu that links elsewhere (to ~/.mitsu: the user's settings, read by every project) is not
      // written through.
      warn(`The permission update was not saved: ${file} resolves to ${outside}, outside the project`);
      continue;
    }
    try {
      // An allow rule for the local settings is what "always" saves: kept out of git, and remembered as the user's.
      if (saved.type === "addRules" && saved.behavior === "allow" && saved.destination === "localSettings")
        await saveLocalAllowRules(cwd, saved.rules.map(ruleText), saved.notTheUsers ? {} : { home });
      else await saveUpdateToFile(file, saved);
    } catch (error) {
      warn(`The permission update was not saved to ${file}: ${(error as Error).message}`);
    }
  }
}

/**
 * Where a project's settings `file` really is, when its folder or the file itself (a link, read before it is
 * replaced) lies outside the project; else undefined.
 */
async function linkedOut(file: string, cwd: string): Promise<string | undefined> {
  const [folder, real, root] = await Promise.all([
    resolveRealPath(dirname(file)),
    resolveRealPath(file),
    resolveRealPath(cwd),
  ]);
  return !isInside(root, folder) ? folder : !isInside(root, real) ? real : undefined;
}
