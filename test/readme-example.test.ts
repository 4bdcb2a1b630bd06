import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../src/simulator/index.js";

const root = join(import.meta.dirname, "..");

/** The code block that follows `<!-- readme-example: name -->` in the README. */
function readmeExample(name: string): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const marker = readme.indexOf(`<!-- readme-example: ${name}`);
  expect(marker).toBeGreaterThan(-1);
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(marker));
  return match?.[1] ?? "";
}

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the README", () => {
  it("its coding-agent example runs as written against the built package (npm test builds first)", async () => {
    const code = readmeExample("coding-agent");
    expect(code.split("\n").length).toBeLessThanOrEqual(21);
    sim = await startSimulator({
      script: [
        {
          content: [
            { type: "text", text: "Adding it." },
            {
              type: "tool_use",
              name: "Write",
              input: { file_path: "README.md", content: "## Tests\n\nnpm test\n" },
            },
          ],
        },
        { content: [{ type: "text", text: "Done: README.md has a Tests section." }] },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), "mitsu-readme-"));
    dirs.push(dir);
    const cwd = join(dir, "ws");
    const home = join(dir, "home");
    mkdirSync(cwd);
    // The example imports "mitsu": resolve it to this package, as an installed dependency would be.
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(root, join(dir, "node_modules", "mitsu"), "dir");
    // The example is plain JavaScript apart from its `ts` fence, so Node runs it as it is.
    writeFileSync(join(dir, "example.mjs"), code);
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, "example.mjs")], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    });
    expect(stdout).toContain("Adding it.");
    expect(stdout).toContain("● Write README.md");
    expect(stdout).toContain("Done: README.md has a Tests section.");
    expect(stdout).toMatch(/context: \d+ of 200000 tokens; session log: .*\.jsonl/);
    expect(readFileSync(join(cwd, "README.md"), "utf8")).toBe("## Tests\n\nnpm test\n");
    const session = /session log: (.*\.jsonl)/.exec(stdout)?.[1] ?? "";
    expect(existsSync(session)).toBe(true);
  });

  it("its capability example (a tool and a reminder, under 20 lines) runs as written: the tool joins the request after the built-ins, the reminder reaches the model, the call runs unasked", async () => {
    const code = readmeExample("capability");
    expect(code.trimEnd().split("\n").length).toBeLessThan(20);
    sim = await startSimulator({
      script: [
        { content: [{ type: "tool_use", name: "Now", input: {} }] },
        { content: [{ type: "text", text: "It is noon." }] },
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), "mitsu-readme-"));
    dirs.push(dir);
    const cwd = join(dir, "ws");
    mkdirSync(cwd);
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(root, join(dir, "node_modules", "mitsu"), "dir");
    writeFileSync(join(dir, "example.mjs"), code);
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, "example.mjs")], {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: join(dir, "home"),
        ANTHROPIC_API_KEY: "sim-key",
        ANTHROPIC_BASE_URL: sim.url,
      },
    });
    expect(stdout).toBe("It is noon.");
    const [first, second] = sim.requests;
    const tools = ((first?.body.tools ?? []) as Array<{ name: string }>).map((t) => t.name);
    expect(tools.at(-1)).toBe("Now");
    expect(tools.slice(0, 3)).toEqual(["Read", "Write", "Edit"]);
    expect(JSON.stringify(first?.body.messages.at(-1))).toContain("Now tells the time.");
    expect(second?.body.tools).toEqual(first?.body.tools);
    const result = JSON.stringify(second?.body.messages.at(-1));
    expect(result).toMatch(/"type":"tool_result".*\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(result).not.toContain('is_error":true');
  });
});
