import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { MITSU_BIN } from "../support/pty.js";
import { simulatorEnv, tempWorkspace } from "./cli-harness.js";

/** Runs the command with stdin closed (as from a script) and resolves with its stdout. */
function run(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MITSU_BIN, ...args], {
      ...options,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", () => resolve({ stdout }));
  });
}

/** A preload that logs the URL of every ES module the process resolves to the file `TUI_LOAD_LOG` names. */
function importLogger(dir: string): string {
  const hooks = join(dir, "log-hooks.mjs");
  writeFileSync(
    hooks,
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.TUI_LOAD_LOG, resolved.url + "\\n");
  return resolved;
}
`,
  );
  const preload = join(dir, "log-preload.mjs");
  writeFileSync(
    preload,
    `import { register } from "node:module";\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
  );
  return preload;
}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe.skipIf(!existsSync(MITSU_BIN))("the terminal UI library loads only in interactive mode", () => {
  it("--version, --help and -p never load @mariozechner/pi-tui", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "Printed." }] }] });
    sim = s.sim;
    const { root, cwd, home } = tempWorkspace();
    const log = join(root, "loaded.log");
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      ...s.env,
      TUI_LOAD_LOG: log,
      NODE_OPTIONS: `--import=${importLogger(root)}`,
    };
    for (const args of [["--version"], ["--help"], ["-p", "hello"]]) {
      writeFileSync(log, "");
      const { stdout } = await run(args, { cwd, env });
      expect(stdout.length).toBeGreaterThan(0);
      const loaded = readFileSync(log, "utf8");
      // The logger works: the command's own modules are in the log.
      expect(loaded).toContain("/cli/");
      expect(loaded, args.join(" ")).not.toContain("pi-tui");
    }
  });
});
