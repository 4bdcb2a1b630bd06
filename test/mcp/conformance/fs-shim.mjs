// node:fs with `globSync`, which Node 22 added and @modelcontextprotocol/conformance imports (for its tier check,
// which these tests do not use). With it, the conformance CLI runs on Node 20.
import * as fs from "node:fs";
import { globSync as tinyGlobSync } from "tinyglobby";

export * from "node:fs";
export default fs.default ?? fs;
export function globSync(pattern, options = {}) {
  return tinyGlobSync(pattern, { cwd: options.cwd ?? process.cwd() });
}
