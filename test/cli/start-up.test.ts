import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsuBin } from "../security/run-bin.js";
import { simulatorEnv, tempWorkspace } from "./cli-harness.js";

/** Packages that only some sessions need, and what each costs to load (on the machine issue 14 was measured on). */
const ON_DEMAND = [
  "@modelcontextprotocol/sdk", // ~100 ms with zod: only when an MCP server is configured
  "zod",
  "ajv", // ~30 ms: the first tool input to validate
  "yaml", // ~20 ms: frontmatter that readSimpleYaml leaves to it
  "turndown", // ~30 ms: the first WebFetch of an HTML page
  "tinyglobby", // ~15 ms: the first Glob
  "ignore", // ~10 ms: the first Glob, the first file permission rule
  "diff", // ~12 ms: the first Edit's diff
  "undici", // ~50 ms: only behind a proxy
  "mvdan-sh", // ~130 ms: the first Bash command to check
  "highlight.js", // ~15 ms: the first code block drawn at a terminal
  "string-width", // ~25 ms: the first string wider than ASCII to measure
  "@agentclientprotocol/sdk", // only in `mitsu acp`
];

/**
 * A preload for `NODE_OPTIONS=--import=…` that appends every package the process loads (ES modules through a
 * resolve hook, CommonJS through the loader) to the file `MITSU_LOAD_LOG` names.
 */
function loadLogger(dir: string): string {
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
    export async function resolve(specifier, context, next) {
      const result = await next(specifier, context);
      appendFileSync(process.env.MITSU_LOAD_LOG, result.url + "\\n");
      return result;
    }`,
  );
  const preload = join(dir, "preload.mjs");
  writeFileSync(
    preload,
    `import Module, { register } from "node:module";
    import { appendFileSync } from "node:fs";
    register(${JSON.stringify(`file://${hooks}`)});
    const load = Module._load;
    Module._load = function (request, parent, ...rest) {
      const loaded = load.call(this, request, parent, ...rest);
      try { appendFileSync(process.env.MITSU_LOAD_LOG, Module._resolveFilename(request, parent) + "\\n"); } catch {}
      return loaded;
    };`,
  );
  return preload;
}

function packagesLoaded(log: string): string[] {
  const names = readFileSync(log, "utf8")
    .split("\n")
    .map((line) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("start-up of the mitsu command", () => {
  it("a first request loads none of the packages that only some sessions need", async () => {
    const { root, cwd, home } = tempWorkspace();
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "hello" }] }] });
    sim = s.sim;
    const log = join(root, "loaded.txt");
    writeFileSync(log, "");
    const run = await runMitsuBin(["-p", "hi", "--no-session-log"], {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ...s.env,
        NODE_OPTIONS: `--import=${loadLogger(root)}`,
        MITSU_LOAD_LOG: log,
      },
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("hello");
    expect(readFileSync(log, "utf8")).toContain("dist/cli/bin.js");
    const loaded = packagesLoaded(log);
    expect(ON_DEMAND.filter((name) => loaded.includes(name))).toEqual([]);
  });
});
