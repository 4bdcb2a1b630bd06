import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { demoScenario } from "../../src/cli/demo/demo-scenario.js";
import { type SimProtocol, type Simulator, startSimulator } from "../../src/simulator/index.js";
import { providerEnv } from "../../src/simulator/provider-env.js";
import { runMitsu, tempWorkspace } from "../cli/cli-harness.js";
import { xmlTurn } from "./conformance-adapters.js";

let sim: Simulator | undefined;
let root: string | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

interface ProviderCase {
  label: string;
  model: string;
  protocol: SimProtocol;
  /** Extra command-line arguments. */
  args: string[];
  xml: boolean;
}

const CASES: ProviderCase[] = [
  { label: "anthropic", model: "anthropic:claude-sonnet-4-5", protocol: "anthropic", args: [], xml: false },
  { label: "openai (chat)", model: "openai:gpt-5", protocol: "openai-chat", args: [], xml: false },
  {
    label: "openai-responses",
    model: "openai-responses:gpt-5",
    protocol: "openai-responses",
    args: [],
    xml: false,
  },
  { label: "gemini", model: "gemini:gemini-2.5-pro", protocol: "gemini", args: [], xml: false },
  {
    label: "openai with --tool-protocol xml",
    model: "openai:gpt-5",
    protocol: "openai-chat",
    args: ["--tool-protocol", "xml"],
    xml: true,
  },
];

describe.each(CASES)("mitsu -p --model on $label", (c) => {
  it("runs the demo scenario: the bug fixed, kelvin.js written, the tests pass", async () => {
    const workspace = tempWorkspace();
    const { cwd, home } = workspace;
    root = workspace.root;
    const script = demoScenario(cwd);
    sim = await startSimulator({ script: c.xml ? script.map(xmlTurn) : script, inputChunk: 24 });
    const out = await runMitsu(
      [
        "-p",
        "--model",
        c.model,
        ...c.args,
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Bash(node --test:*),Bash(grep:*)",
        "fix it",
      ],
      { cwd, home, env: providerEnv(sim.url) },
    );
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    // Every turn went over this provider's wire and was served.
    expect(sim.requests.map((r) => [r.protocol, r.status])).toEqual(
      Array.from({ length: script.length }, () => [c.protocol, 200]),
    );
    expect(readFileSync(join(cwd, "src/temperature.js"), "utf8")).toContain("(celsius * 9) / 5 + 32");
    expect(readFileSync(join(cwd, "src/kelvin.js"), "utf8")).toContain("export function toKelvin(celsius)");
    // The Bash result (the test run) went back to the model in the request after it.
    expect(JSON.stringify(sim.requests[5]?.body)).toContain("pass 2");
    expect(out.stdout).toContain("added `src/kelvin.js`");
    if (c.xml) {
      // No native tools on the wire: they are described in the system prompt and called as tags.
      expect(sim.requests.every((r) => r.body.tools === undefined)).toBe(true);
      expect(JSON.stringify(sim.requests[1]?.body)).toContain("<tool_result id=");
    }
    execFileSync(process.execPath, ["--test", "test/"], { cwd, stdio: "pipe" });
  });
});
