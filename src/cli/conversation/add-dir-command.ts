import type { FolderSet } from "../../fs/folder-set.js";
import { destinationFile, saveUpdateToFile } from "../../permissions/permission-update.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";

/**
 * `/add-dir <path>`: the folder joins the workspace at once (the user typing it is the approval): Read, Write,
 * Edit, Glob, Grep, the permission checker and the sandbox reach it from the next tool call on. `--remember` also
 * saves it to `permissions.additionalDirectories` in `.mitsu/settings.local.json`, as Claude Code's "remember"
 * choice does. Without a path: the workspace folders. The system prompt names the folders of a session's start, so
 * a folder added now is named there from the next session (the cached prefix stays as it was).
 */
export async function addDirCommand(args: string, folders: FolderSet, style: Style): Promise<string> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const remember = words.includes("--remember");
  // A path with spaces may be typed quoted, as a shell would take it.
  const path = words
    .filter((w) => w !== "--remember")
    .join(" ")
    .replace(/^(["'])(.*)\1$/, "$2");
  if (path === "") {
    const list = folders.list();
    const lines = [`Working folder: ${folders.cwd}`];
    lines.push(
      list.length > 0 ? `Added folders:\n${list.map((f) => `  ${f}`).join("\n")}` : "No added folders.",
    );
    lines.push(
      style.dim("Add one with /add-dir <path> (--remember saves it to .mitsu/settings.local.json)."),
    );
    return stripControls(lines.join("\n"));
  }
  let added: Awaited<ReturnType<FolderSet["add"]>>;
  try {
    added = await folders.add(path);
  } catch (error) {
    return style.red(stripControls(`✖ ${(error as Error).message}; no folder added`));
  }
  const lines: string[] = [];
  if (added.warning) lines.push(style.yellow(stripControls(`⚠ ${added.warning}`)));
  lines.push(
    added.added
      ? stripControls(`Added ${added.real} to the workspace for this session.`)
      : stripControls(`${added.real} is already in the workspace.`),
  );
  if (remember) {
    const file = destinationFile("localSettings", { cwd: folders.cwd, home: folders.home })!;
    try {
      await saveUpdateToFile(file, {
        type: "addDirectories",
        directories: [added.real],
        destination: "localSettings",
      });
      lines.push(style.dim(stripControls(`Saved to ${file}.`)));
    } catch (error) {
      lines.push(style.red(stripControls(`✖ ${(error as Error).message}`)));
    }
  }
  return lines.join("\n");
}
