import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadSession } from "./load-session.js";

/**
 * What `-r` names: a session file (a path that exists), or a session id — the whole id from the header or its
 * first 8 or more characters (the file name holds the first 8). Throws when nothing, or more than one session,
 * matches, naming the folder that was searched.
 */
export function findSession(dir: string, idOrPath: string, cwd: string): string {
  const asPath = resolve(cwd, idOrPath);
  if (idOrPath.endsWith(".jsonl") || idOrPath.includes("/") || idOrPath.includes("\\")) {
    if (existsSync(asPath)) return asPath;
    throw new Error(`No session file ${asPath}.`);
  }
  const id = idOrPath.trim().toLowerCase();
  if (!/^[0-9a-f-]{8,}$/.test(id)) {
    if (existsSync(asPath)) return asPath;
    throw new Error(`"${idOrPath}" is neither a session file nor a session id (8 or more hex digits).`);
  }
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(`-${id.slice(0, 8)}.jsonl`));
  } catch {
    // No sessions folder yet: nothing matches.
  }
  const matches = names
    .map((n) => join(dir, n))
    .filter((file) => {
      try {
        return loadSession(file).header.id.toLowerCase().startsWith(id);
      } catch {
        return false;
      }
    });
  if (matches.length === 1 && matches[0]) return matches[0];
  if (matches.length === 0) throw new Error(`No session ${idOrPath} in ${dir}.`);
  throw new Error(`Session id ${idOrPath} is ambiguous in ${dir}: ${matches.join(", ")}.`);
}
