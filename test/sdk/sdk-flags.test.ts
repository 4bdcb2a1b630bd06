import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { sdkWorld } from "./sdk-harness.js";

function sink(write: (text: string) => void): NodeJS.WritableStream {
  return {
    write: (text: string) => {
      write(text);
      return true;
    },
  } as unknown as NodeJS.WritableStream;
}

/** mitsu in-process with the SDK's flags and one user message on stdin; its output lines. */
async function runWithFlags(world: Awaited<ReturnType<typeof sdkWorld>>, flags: string[], prompt = "go") {
  let out = "";
  let err = "";
  const code = await main(
    ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", ...flags],
    {
      stdin: Readable.from([
        `${JSON.stringify({ type: "user", message: { role: "user", content: prompt } })}\n`,
      ]),
      stdout: sink((s) => {
        out += s;
      }),
      stderr: sink((s) => {
        err += s;
      }),
      cwd: world.cwd,
      home: world.home,
      env: world.env,
    },
  );
  const lines = out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l));
  return { code, lines, stderr: err };
}

describe("the Claude Agent SDK's flags, as its sdk.mjs writes them", () => {
  it("--system-prompt, --append-system-prompt, --tools, --agents and --max-thinking-tokens shape the request", async () => {
    const world = await sdkWorld([{ content: [{ type: "text", text: "ok" }] }]);
    const agents = {
      critic: { description: "Criticises plans.", prompt: "You criticise.", tools: ["Read"] },
    };
    const { code, lines } = await runWithFlags(world, [
      "--system-prompt=You are a test.",
      "--append-system-prompt=Be brief.",
      "--tools=Read,Glob,Task",
      `--agents=${JSON.stringify(agents)}`,
      "--max-thinking-tokens=2048",
      "--permission-mode=default",
      "--setting-sources=user,project,local",
      "--debug-file=/dev/null",
    ]);
    expect(code).toBe(0);
    const body = world.sim.requests[0]?.body;
    expect(body.system.map((b: { text: string }) => b.text)).toEqual(["You are a test.", "Be brief."]);
    expect(body.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Glob", "Task"]);
    expect(JSON.stringify(body.tools[2])).toContain("critic");
    expect(body.thinking).toMatchObject({ type: "enabled", budget_tokens: 2048 });
    expect(lines[0]).toMatchObject({
      type: "system",
      subtype: "init",
      agents: expect.arrayContaining(["critic"]),
    });
  });

  it("--tools chooses among the tools mitsu builds (no list of its own): every other one is gone, also as a rule", async () => {
    const world = await sdkWorld([
      { content: [{ type: "text", text: "ok" }] },
      { content: [{ type: "tool_use", name: "Bash", input: { command: "touch made" } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const all = (await runWithFlags(world, [])).lines[0].tools as string[];
    expect(all.length).toBeGreaterThan(10);
    const chosen = [all.at(-1)!, all[0]!];
    const { lines } = await runWithFlags(world, [
      `--tools=${chosen.join(",")}`,
      "--permission-mode=bypassPermissions",
    ]);
    // In mitsu's order; the model is offered the same.
    expect(lines[0].tools).toEqual(all.filter((name) => chosen.includes(name)));
    expect(world.sim.requests[1]?.body.tools.map((t: { name: string }) => t.name)).toEqual(lines[0].tools);
    // A call of a tool not chosen does not run, even in bypass mode.
    if (!chosen.includes("Bash")) {
      const { existsSync } = await import("node:fs");
      expect(existsSync(join(world.cwd, "made"))).toBe(false);
    }
  });

  it("--model takes Claude Code's aliases: haiku is Anthropic's small model", async () => {
    const world = await sdkWorld([{ content: [{ type: "text", text: "ok" }] }]);
    const { code, lines } = await runWithFlags(world, ["--model=haiku"]);
    expect(code).toBe(0);
    expect(world.sim.requests[0]?.body.model).toBe("claude-haiku-4-5");
    expect(lines[0]).toMatchObject({ subtype: "init", model: "claude-haiku-4-5" });
  });

  it("--setting-sources user: the project's settings files are not read", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Read", input: { file_path: "secret.txt" } }] },
      { content: [{ type: "text", text: "read" }] },
      { content: [{ type: "tool_use", name: "Read", input: { file_path: "secret.txt" } }] },
      { content: [{ type: "text", text: "read" }] },
    ]);
    mkdirSync(join(world.cwd, ".mitsu"));
    writeFileSync(
      join(world.cwd, ".mitsu", "settings.json"),
      '{"permissions":{"deny":["Read(./secret.txt)"]}}',
    );
    writeFileSync(join(world.cwd, "secret.txt"), "the secret\n");
    const all = await runWithFlags(world, []);
    expect(all.lines.at(-1).permission_denials).toHaveLength(1);
    const userOnly = await runWithFlags(world, ["--setting-sources=user"]);
    expect(userOnly.lines.at(-1).permission_denials).toEqual([]);
    expect(JSON.stringify(world.sim.requests[3]?.body.messages.at(-1))).toContain("the secret");
  });

  it("a flag's bad value is an error result naming the flag, before any model call", async () => {
    const world = await sdkWorld([]);
    for (const [flag, words] of [
      ["--json-schema=[1", "--json-schema"],
      ["--permission-prompt-tool=mcp__auth__ask", "stdio"],
      ["--setting-sources=user,cloud", "cloud"],
      ['--agents={"a":{}}', "needs a description"],
      ["--session-id=0000", "--session-id"],
    ] as const) {
      const { code, lines } = await runWithFlags(world, [flag]);
      expect(code, flag).toBe(1);
      expect(lines.at(-1), flag).toMatchObject({ type: "result", is_error: true });
      expect(lines.at(-1).errors.join(" "), flag).toContain(words);
    }
    expect(world.sim.requests).toHaveLength(0);
  });
});
