import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const jsonLines = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("Claude Code's conventions", () => {
  it("--allowedTools is variadic; a word that is not a rule is the prompt (not 'Bash prompt')", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--allowedTools", "Edit", "Bash", "fix the bug"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    const texts = sim.requests[0]?.body.messages[0].content.map((b: { text?: string }) => b.text);
    expect(texts.at(-1)).toBe("fix the bug");
  });

  it("a tool named whole in --disallowedTools is not sent in tools at all", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--disallowedTools", "Bash", "WebFetch", "--", "hi"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    const names = sim.requests[0]?.body.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("Read");
    expect(names).not.toContain("Bash");
  });

  it("--output-format json prints Claude Code's result object", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "42" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "json", "answer"], { cwd, home, env: s.env });
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "42",
      num_turns: 1,
      permission_denials: [],
    });
    expect(result.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof result.duration_ms).toBe("number");
    expect(typeof result.duration_api_ms).toBe("number");
    expect(result).toHaveProperty("total_cost_usd");
    expect(result.usage.output_tokens).toBeGreaterThan(0);
  });

  it("--output-format stream-json: init, assistant and user messages, then the result with its denials", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "touch pwned" } }] },
        { content: [{ type: "text", text: "denied" }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "stream-json", "go"], { cwd, home, env: s.env });
    const lines = jsonLines(out.stdout);
    expect(lines.map((l) => l.type)).toEqual(["system", "assistant", "user", "assistant", "result"]);
    expect(lines[0]).toMatchObject({ subtype: "init", model: "claude-sonnet-5-5", cwd });
    expect(lines[0].tools).toContain("Bash");
    expect(lines[1].message.content[0]).toMatchObject({ type: "tool_use", name: "Bash" });
    expect(lines[1].parent_tool_use_id).toBeNull();
    expect(lines[2].message.content[0]).toMatchObject({ type: "tool_result", is_error: true });
    const result = lines.at(-1);
    expect(result.num_turns).toBe(2);
    expect(result.permission_denials).toEqual([
      {
        tool_name: "Bash",
        tool_use_id: lines[1].message.content[0].id,
        tool_input: { command: "touch pwned" },
      },
    ]);
    expect(new Set(lines.map((l) => l.session_id))).toEqual(new Set([result.session_id]));
  });

  it("--input-format stream-json: each user line is one prompt of one conversation", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const stdin = Readable.from([
      `${JSON.stringify({ type: "user", message: { role: "user", content: "first" } })}\n`,
      `${JSON.stringify({ type: "user", message: { role: "user", content: [{ type: "text", text: "second" }] } })}\n`,
    ]);
    let stdout = "";
    const sink = {
      write: (s: string) => {
        stdout += s;
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const code = await main(["-p", "--input-format", "stream-json", "--output-format", "stream-json"], {
      stdin,
      stdout: sink,
      stderr: sink,
      cwd,
      home,
      env: { PATH: process.env.PATH, ...s.env },
    });
    expect(code).toBe(0);
    const results = jsonLines(stdout).filter((l) => l.type === "result");
    expect(results.map((r) => r.result)).toEqual(["one", "two"]);
    const second = sim.requests[1]?.body.messages;
    expect(second).toHaveLength(3);
    expect(second[1].content[0].text).toBe("one");
  });

  it("a usage error under --output-format json is JSON too", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "json", "--max-turns", "zero", "hi"], {
      cwd,
      home,
    });
    expect(out.code).not.toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ type: "result", is_error: true });
    expect(JSON.parse(out.stdout).result).toContain("max-turns");
  });

  it("a missing key under --output-format json is a JSON result", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "json", "hi"], { cwd, home });
    expect(out.code).toBe(1);
    expect(JSON.parse(out.stdout)).toMatchObject({ is_error: true });
    expect(JSON.parse(out.stdout).result).toContain("ANTHROPIC_API_KEY");
  });

  it("`mitsu help` prints the help, it is not a prompt", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["help"], { cwd, home });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Usage: mitsu");
    expect(out.stdout).toContain("--output-format");
  });

  it("-r takes a session id (or its first 8 characters) as well as a file", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const first = await runMitsu(["-p", "--output-format", "json", "first"], { cwd, home, env: s.env });
    const id: string = JSON.parse(first.stdout).session_id;
    const out = await runMitsu(["-p", "-r", id.slice(0, 8), "--output-format", "json", "second"], {
      cwd,
      home,
      env: s.env,
    });
    expect(JSON.parse(out.stdout)).toMatchObject({ result: "two", session_id: id });
    expect(sim.requests[1]?.body.messages[1].content[0].text).toBe("one");
  });

  it("ANTHROPIC_MODEL, .claude settings' env and ANTHROPIC_AUTH_TOKEN (Bearer) are honoured", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    mkdirSync(join(home, ".claude"), { recursive: true });
    // The user's own Claude Code settings route to the gateway; the key is a Bearer token.
    writeFileSync(
      join(home, ".claude", "settings.json"),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: s.env.ANTHROPIC_BASE_URL, ANTHROPIC_AUTH_TOKEN: "tok" } }),
    );
    const out = await runMitsu(["-p", "hi"], { cwd, home, env: { ANTHROPIC_MODEL: "claude-haiku-4-5" } });
    expect(out.stderr).toBe("");
    expect(out.code).toBe(0);
    expect(sim.requests[0]?.body.model).toBe("claude-haiku-4-5");
    expect(sim.requests[0]?.headers.authorization).toBe("Bearer tok");
  });

  it("a program-level --model applies to inspect", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["--model", "openai:gpt-5", "inspect", "--json", "hello"], { cwd, home });
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).body.model).toBe("gpt-5");
    expect(readdirSync(cwd)).not.toContain(".mitsu-sessions");
  });
});
