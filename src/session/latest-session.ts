import { readdirSync } from "node:fs";
import { join } from "node:path";

/** The newest session file in `dir` (names start with an ISO timestamp, so they sort by time), if any. */
export function latestSession(dir: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return undefined;
  }
  const newest = names.sort().at(-1);
  return newest ? join(dir, newest) : undefined;
}
