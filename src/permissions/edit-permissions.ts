import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Changes the `permissions` object of a settings file (made when missing, as is the file) with `edit`, keeping the
 * file's other keys; a temporary file renamed, so a crash leaves the old file whole. Throws when the file is not a
 * JSON object, saying `notSaved`.
 */
export async function editPermissions(
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
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(settings, null, 2)}\n`);
  await rename(temp, file);
}
