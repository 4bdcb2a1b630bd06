import { readFileSync } from "node:fs";

/** What mitsu says it is in `initialize`: `mitsu` and the package's version (read from package.json beside dist/ or src/). */
export function mitsuClientInfo(): { name: string; version: string } {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return { name: "mitsu", version: pkg.version ?? "0" };
  } catch {
    return { name: "mitsu", version: "0" };
  }
}
