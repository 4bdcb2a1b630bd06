import { existsSync, readFileSync } from "node:fs";

/** The JSON values of a file written one a line (a server's log, say); none while the file is not there. */
export function readJsonLines(path: string): unknown[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}
