/**
 * `npm run demo`: mitsu in print mode against its own simulator (a scripted model, no network, no API key),
 * on a temporary copy of examples/demo-workspace. Everything on screen is the real `mitsu` command at work:
 * the real provider adapter, loop, tools and permission rules; only the model is scripted.
 */
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSimulator } from "../../simulator/index.js";
import { providerEnv } from "../../simulator/provider-env.js";
import { main } from "../main.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { demoScenario } from "./demo-scenario.js";

const model = modelArgument(process.argv.slice(2));
const source = fileURLToPath(new URL("../../../examples/demo-workspace", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "mitsu-demo-"));
const workspace = join(root, "demo-workspace");
const home = join(root, "home");
cpSync(source, workspace, { recursive: true });

const fast = process.argv.includes("--fast");
const sim = await startSimulator({
  script: demoScenario(workspace),
  textChunk: 4,
  inputChunk: 24,
  delayMs: fast ? 0 : 12,
});
const style = createStyle(colorEnabled(process.stdout));
const prompt =
  "The temperature tests fail. Find the bug, fix it, run the tests, then add Kelvin conversions.";
process.stdout.write(
  `${style.bold("mitsu demo")} ${style.dim(`— a SCRIPTED model served by mitsu's simulator at ${sim.url} (no network, no API key)`)}\n` +
    `${style.dim(`workspace: ${workspace}`)}\n` +
    `${style.dim(`$ mitsu -p ${model ? `--model ${model} ` : ""}--permission-mode acceptEdits --allowedTools "Bash(node --test:*),Bash(grep:*)" "${prompt}"`)}\n\n`,
);

let code = 1;
try {
  code = await main(
    [
      "-p",
      ...(model ? ["--model", model] : []),
      "--permission-mode",
      "acceptEdits",
      "--allowedTools",
      "Bash(node --test:*),Bash(grep:*)",
      prompt,
    ],
    {
      stdout: process.stdout,
      stderr: process.stderr,
      cwd: workspace,
      home,
      // Every provider's key and base URL point at the simulator: whichever `--model` picks, no request leaves.
      env: {
        ...process.env,
        ...providerEnv(sim.url),
        MITSU_MODEL: "",
      },
    },
  );
  process.stdout.write(
    `\n${style.dim(`${sim.requests.length} requests served by the simulator; the workspace is left at ${workspace}`)}\n`,
  );
} finally {
  await sim.close();
  if (process.argv.includes("--clean")) rmSync(root, { recursive: true, force: true });
}
process.exitCode = code;

/** `--model <provider:model>` or `--model=<provider:model>` from the demo's own arguments (`npm run demo -- --model …`). */
function modelArgument(args: readonly string[]): string | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg.startsWith("--model=")) return arg.slice("--model=".length) || missingModel();
    if (arg === "--model") return args[i + 1] ?? missingModel();
  }
  return undefined;
}

function missingModel(): never {
  process.stderr.write("npm run demo: --model needs a value, e.g. --model openai:gpt-5\n");
  process.exit(2);
}
