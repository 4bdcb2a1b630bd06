import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli/cli-harness.js";

// Issue 10, part 6: Read deny rules hold for Grep and Glob, also when they search a parent folder.

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

type Call = { name: string; input: Record<string, unknown> };

/** Runs the calls in one turn through `mitsu -p` and returns their results' text, in order. */
async function results(calls: Call[], deny: string[], setup?: (cwd: string) => void): Promise<string[]> {
  const s = await simulatorEnv({
    script: [
      { content: calls.map((call) => ({ type: "tool_use" as const, ...call })) },
      { content: [{ type: "text" as const, text: "Done." }] },
    ],
  });
  sim = s.sim;
  const { cwd, home } = tempWorkspace({ empty: true });
  mkdirSync(join(cwd, "secrets"), { recursive: true });
  mkdirSync(join(cwd, "src", "secrets"), { recursive: true });
  writeFileSync(join(cwd, "secrets", "api.key"), "TOKEN=hunter2\n");
  writeFileSync(join(cwd, "src", "secrets", "fixture.txt"), "TOKEN=public-fixture\n");
  writeFileSync(join(cwd, "src", "app.ts"), "const TOKEN = process.env.TOKEN;\n");
  writeFileSync(join(cwd, ".env"), "TOKEN=dotenv-secret\n");
  mkdirSync(join(cwd, ".mitsu"), { recursive: true });
  writeFileSync(join(cwd, ".mitsu", "settings.json"), JSON.stringify({ permissions: { deny } }));
  setup?.(cwd);
  const out = await runMitsu(["-p", "search"], { cwd, home, env: s.env });
  expect(out.code, out.stderr).toBe(0);
  const blocks = sim.requests[1]?.body.messages.at(-1).content as Array<{ content: unknown }>;
  return blocks.map((block) =>
    typeof block.content === "string" ? block.content : JSON.stringify(block.content),
  );
}

describe("the README's Read(./secrets/**) example", () => {
  it("Grep with no path does not return the secret; files outside the rule are still found", async () => {
    const [files, content] = await results(
      [
        { name: "Grep", input: { pattern: "TOKEN" } },
        { name: "Grep", input: { pattern: "TOKEN", output_mode: "content" } },
      ],
      ["Read(./secrets/**)"],
    );
    expect(files).not.toContain("api.key");
    expect(files).toContain("src/app.ts");
    // Anchored: `./secrets/**` is the project's secrets folder, not src/secrets.
    expect(files).toContain("src/secrets/fixture.txt");
    expect(content).not.toContain("hunter2");
    expect(content).toContain("public-fixture");
  });

  it("Glob does not list the names", async () => {
    const [all, inside] = await results(
      [
        { name: "Glob", input: { pattern: "**/*" } },
        { name: "Glob", input: { pattern: "**/*.key" } },
      ],
      ["Read(./secrets/**)"],
    );
    expect(all).not.toContain("api.key");
    expect(all).toContain("src/app.ts");
    expect(inside).toBe("No files found.");
  });

  it("a glob of the model's own cannot include them again", async () => {
    const [grep] = await results(
      [{ name: "Grep", input: { pattern: "TOKEN", glob: "secrets/**", output_mode: "content" } }],
      ["Read(./secrets/**)"],
    );
    expect(grep).not.toContain("hunter2");
  });
});

describe("other Read deny rules", () => {
  it("unanchored names and --disallowedTools-like absolute rules are excluded at any depth", async () => {
    const [grep, glob] = await results(
      [
        { name: "Grep", input: { pattern: "TOKEN", output_mode: "content" } },
        { name: "Glob", input: { pattern: "**/*", path: "." } },
      ],
      ["Read(.env)", "Read(**/secrets/**)"],
    );
    expect(grep).not.toContain("dotenv-secret");
    expect(grep).not.toContain("hunter2");
    expect(grep).not.toContain("public-fixture");
    expect(grep).toContain("src/app.ts");
    expect(glob).not.toContain(".env");
    expect(glob).not.toContain("secrets");
  });
});
