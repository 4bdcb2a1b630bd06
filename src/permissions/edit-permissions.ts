import { readFile } from "node:fs/promises";
import { writeConfigFile } from "../fs/write-config-file.js";

/** The edit of each file under way: the next one waits for it, so that two at once never lose one's change. */
const editing = new Map<string, Promise<void>>();

/**
 * Changes the `permissions` object of a settings file (made when missing, as is the file) with `edit`, keeping the
 * file's other keys; written as `writeConfigFile` writes (a crash leaves the old file whole). Edits of one file are
 * made one after another (two answers' updates at once: read, change, write each in turn). Throws when the file is
 * not a JSON object, saying `notSaved`.
 */
export function editPermissions(
  file: string,
  notSaved: string,
  edit: (permissions: Record<string, unknown>) => void,
): Promise<void> {
  const next = (editing.get(file) ?? Promise.resolve()).then(() => editNow(file, notSaved, edit));
  const settled = next.catch(() => {});
  editing.set(file, settled);
  void settled.then(() => {
    if (editing.get(file) === settled) editing.delete(file);
  });
  return next;
}

async function editNow(
  file: string,
  notSaved: string,
  edit: (permissions: Record<string, unknown>) => void,
): Promise<void> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  const settings = text === undefined ? {} : (JSON.parse(text) as unknown);
  if (typeof settings !== "object" || settings === null || Array.isArray(settings))
    throw new Error(`${file} is not a JSON object; ${notSaved}`);
  const record = settings as { permissions?: Record<string, unknown> };
  const permissions =
    typeof record.permissions === "object" &&
    record.permissions !== null &&
    !Array.isArray(record.permissions)
      ? record.permissions
      : {};
  record.permissions = permissions;
  edit(permissions);
  await writeConfigFile(file, `${JSON.stringify(settings, null, 2)}\n`);
}
