import type { Command } from "commander";
import type { CommandContext } from "./command-context.js";

/** `mitsu demo`: mitsu fixing a sample project against its own simulator. */
export function registerDemo(ctx: CommandContext): void {
  ctx.program
    .command("demo")
    .description(
      "watch mitsu fix a sample project against its own simulator (a scripted model; no key, no network)",
    )
    .allowUnknownOption()
    .allowExcessArguments()
    .action(async (_options: unknown, command: Command) => {
      // The demo is a script of its own (also `npm run demo`), run as a child so that it may drive `main`
      // without the two modules importing each other.
      const { spawn } = await import("node:child_process");
      const { fileURLToPath } = await import("node:url");
      // Beside the bundled command (dist/cli/bin.js and its chunks): tsc builds the demo script in dist/cli/demo/.
      const script = fileURLToPath(new URL("./demo/demo.js", import.meta.url));
      const child = spawn(process.execPath, [script, ...command.args], { stdio: "inherit" });
      ctx.exitCode = await new Promise<number>((done) => {
        child.on("error", () => done(1));
        child.on("close", (code, signal) => done(code ?? (signal ? 130 : 1)));
      });
    });
}
