import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

describe("errors a user meets in the first minutes say what to do", () => {
  it("a model the catalog does not know is named at start-up; a 404 says to check the model name", async () => {
    const s = await simulatorEnv({
      script: [{ content: [], fault: { kind: "http", status: 404 } }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const run = await runMitsu(["-p", "--model", "claude-sonet-4", "hi"], { cwd, home, env: s.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`"claude-sonet-4" is not in mitsu's catalog of anthropic models`);
    expect(run.stderr).toContain("check the model name (--model provider:model");
  });

  it("a known model gets no such warning", async () => {
    const s = await simulatorEnv({ script: [text("Hi.")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const run = await runMitsu(["-p", "--model", "claude-sonnet-5-5", "hi"], { cwd, home, env: s.env });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("catalog");
  });

  it("a base URL without a key: the request goes out without one, and mitsu says so", async () => {
    const s = await simulatorEnv({ script: [text("Answered.")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const run = await runMitsu(["-p", "hi"], { cwd, home, env: { ANTHROPIC_BASE_URL: s.sim.url } });
    expect(s.sim.requests[0]?.headers["x-api-key"]).toBeUndefined();
    expect(run.stderr).toContain(
      `no ANTHROPIC_API_KEY is set: requests to ${s.sim.url} go out without an API key`,
    );
  });

  it("invalid settings JSON names the line, and the rest of mitsu goes on (as Claude Code does)", async () => {
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(cwd, ".mitsu"), { recursive: true });
    // A trailing comma is JSONC and fine; a missing comma is not JSON at all.
    writeFileSync(
      join(cwd, ".mitsu", "settings.json"),
      '{\n  "permissions": {\n    "allow": ["Bash(ls)" "Read"]\n  }\n}\n',
    );
    const run = await runMitsu(["inspect", "hi"], { cwd, home, env: { ANTHROPIC_API_KEY: "k" } });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`${join(cwd, ".mitsu", "settings.json")}:3: invalid JSON`);
    expect(run.stderr).toContain("this file's settings are ignored");
  });

  it("a bad --thinking value exits 1 with a message in text mode too", async () => {
    const { cwd, home } = tempWorkspace();
    const run = await runMitsu(["-p", "--thinking", "abc", "hi"], {
      cwd,
      home,
      env: { ANTHROPIC_API_KEY: "k" },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--thinking takes a budget of at least 1024 tokens");
  });
});
