import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("mitsu -p", () => {
  it("streams the answer as text and exits 0", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "Hello from the model." }] }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "say hello"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Hello from the model.");
    const body = sim.requests[0]?.body;
    expect(body.model).toBe("claude-sonnet-5-5");
    expect(body.stream).toBe(true);
    const texts = body.messages[0].content.map((b: { text?: string }) => b.text ?? "");
    expect(texts.at(-1)).toBe("say hello");
    // Project instructions, skills list and the like arrive as <system-reminder> blocks before the prompt.
    expect(texts.some((t: string) => t.startsWith("<system-reminder>"))).toBe(true);
  });

  it("without an API key says which variable to set and exits non-zero, sending nothing", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "hi"], { cwd, home, env: {} });
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain("ANTHROPIC_API_KEY");
  });

  it("--cache-ttl 1h marks the breakpoints with the 1-hour TTL", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "Cached." }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--cache-ttl", "1h", "hi"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    const body = sim.requests[0]?.body;
    expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(body.messages[0].content.at(-1).cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("with no prompt at all says so", async () => {
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p"], { cwd, home, env: { ANTHROPIC_API_KEY: "k" } });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("no prompt");
  });

  it("runs tools, shows their activity, and logs the session before each request", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Read", input: { file_path: "src/temperature.js" } }] },
        { content: [{ type: "text", text: "It converts temperatures." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "what does it do?"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Read");
    expect(out.stdout).toContain("It converts temperatures.");
    const result = sim.requests[1]?.body.messages[2].content[0];
    expect(result.type).toBe("tool_result");
    expect(JSON.stringify(result.content)).toContain("export function toFahrenheit");
    const dir = join(home, ".mitsu", "projects");
    const project = readdirSync(dir)[0]!;
    const sessions = join(dir, project, "sessions");
    const file = join(sessions, readdirSync(sessions)[0]!);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", version: 3 });
    // Format 2: the Read's start and result are logged as they happen, before the message that carries them.
    expect(
      lines.slice(1).map((l: { type: string; message?: { role: string } }) => l.message?.role ?? l.type),
    ).toEqual(["user", "assistant", "tool-start", "tool-result", "user", "assistant"]);
  });

  it("--continue resumes the latest session: the next request carries the earlier turns", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "text", text: "First answer." }] },
        { content: [{ type: "text", text: "Second." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    expect((await runMitsu(["-p", "first"], { cwd, home, env: s.env })).code).toBe(0);
    expect((await runMitsu(["-p", "-c", "second"], { cwd, home, env: s.env })).code).toBe(0);
    const messages = sim.requests[1]?.body.messages;
    expect(messages).toHaveLength(3);
    expect(messages[1].content[0].text).toBe("First answer.");
    // The reminders the first prompt carried (the skills list) are in the transcript already: not sent again.
    const reminders = (m: { content: Array<{ text?: string }> }) =>
      m.content.filter((b) => b.text?.startsWith("<system-reminder>")).length;
    expect(reminders(messages[0])).toBeGreaterThan(0);
    expect(reminders(messages[2])).toBe(0);
  });

  it("--continue sends the system prompt the session started with, so the cached prefix still holds", async () => {
    // Regression: a resumed session rebuilt the system prompt, whose git snapshot had changed since (the model's
    // own edits), so the first request after a resume missed the whole prompt cache.
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "text", text: "First answer." }] },
        { content: [{ type: "text", text: "Second." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const git = (...args: string[]) => execFileSync("git", args, { cwd, stdio: "pipe" });
    git("init", "-q");
    expect((await runMitsu(["-p", "first"], { cwd, home, env: s.env })).code).toBe(0);
    writeFileSync(join(cwd, "new-file.txt"), "changes the git status\n");
    expect((await runMitsu(["-p", "-c", "second"], { cwd, home, env: s.env })).code).toBe(0);
    const [first, second] = sim.requests.map((r) => r.body);
    expect(second.system.map((b: { text: string }) => b.text)).toEqual(
      first.system.map((b: { text: string }) => b.text),
    );
    expect(second.messages[1].content[0].text).toBe("First answer.");
  });

  it("--output-format json prints one result object", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "42" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "json", "answer"], { cwd, home, env: s.env });
    const result = JSON.parse(out.stdout);
    expect(result).toMatchObject({
      type: "result",
      is_error: false,
      stop_reason: "end_turn",
      result: "42",
      num_turns: 1,
    });
    expect(result.usage.output_tokens).toBeGreaterThan(0);
    expect(result.total_cost_usd).toBeGreaterThan(0);
  });

  it("--output-format json counts num_turns of this run only, also in a resumed session", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    expect((await runMitsu(["-p", "first"], { cwd, home, env: s.env })).code).toBe(0);
    const out = await runMitsu(["-p", "-c", "--output-format", "json", "second"], { cwd, home, env: s.env });
    expect(JSON.parse(out.stdout)).toMatchObject({ result: "two", num_turns: 1 });
  });

  it("--output-format stream-json ends with a result whose total_cost_usd is priced from the catalog", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "streamed" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "stream-json", "go"], { cwd, home, env: s.env });
    const result = JSON.parse(out.stdout.trim().split("\n").at(-1) as string);
    expect(result.type).toBe("result");
    const u = s.sim.requests[0]?.usage;
    if (!u) throw new Error("no usage");
    // claude-sonnet-5-5: $3 / $15 per million, cache writes (5m) 1.25 ×, reads 0.1 ×.
    const usd =
      (u.input_tokens * 3 +
        u.output_tokens * 15 +
        u.cache_creation_input_tokens * 3.75 +
        u.cache_read_input_tokens * 0.3) /
      1e6;
    expect(result.total_cost_usd).toBeCloseTo(usd, 10);
    expect(result.total_cost_usd).toBeGreaterThan(0);
  });

  it("--output-format mitsu-events prints one event per line, ending with agent-end", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "streamed" }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--output-format", "mitsu-events", "go"], { cwd, home, env: s.env });
    const events = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.some((e) => e.type === "text-delta")).toBe(true);
    expect(events.at(-1).type).toBe("agent-end");
    // turn-start gives the request's shape, not the transcript again on every turn.
    const turn = events.find((e) => e.type === "turn-start");
    expect(turn.request).toMatchObject({ model: "claude-sonnet-5-5", messages: 1 });
    expect(turn.request.tools).toContain("Read");
  });

  it("--output-format mitsu-events passes a command's progress through, between its call's start and end", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "printf 'step 1\\nstep 2\\n'" } }] },
        { content: [{ type: "text", text: "ran" }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(
      ["-p", "--output-format", "mitsu-events", "--allowedTools", "Bash(printf:*)", "go"],
      { cwd, home, env: s.env },
    );
    expect(out.code).toBe(0);
    const events = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const types = events.map((e) => e.type);
    const progress = events.filter((e) => e.type === "tool-progress");
    expect(progress.map((e) => e.text).join("")).toBe("step 1\nstep 2\n");
    const call = events.find((e) => e.type === "tool-call-start").block.id;
    expect(progress.every((e) => e.toolUseId === call && e.turn === 1)).toBe(true);
    expect(types.indexOf("tool-call-start")).toBeLessThan(types.indexOf("tool-progress"));
    expect(types.lastIndexOf("tool-progress")).toBeLessThan(types.indexOf("tool-call-end"));
  });

  it("a command's single 100,000-character output line is cut by characters, not printed whole", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            { type: "tool_use", name: "Bash", input: { command: "head -c 100000 /dev/zero | tr '\\0' x" } },
          ],
        },
        { content: [{ type: "text", text: "Long." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--permission-mode", "bypassPermissions", "print a long line"], {
      cwd,
      home,
      env: s.env,
    });
    expect(out.code).toBe(0);
    expect(out.stdout.length).toBeLessThan(5000);
    expect(out.stdout).toContain("characters more)");
    expect(out.stdout).toContain("Long.");
  });

  it("an ask in print mode is a denial that tells the user how to allow it; nothing runs", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: "touch pwned" } }] },
        { content: [{ type: "text", text: "I could not run it." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "make a file"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(existsSync(join(cwd, "pwned"))).toBe(false);
    const result = sim.requests[1]?.body.messages[2].content[0];
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("--allowedTools");
  });

  it("a model error ends with exit code 1 and the error on stderr, not in the answer", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "x" }], fault: { kind: "http", status: 400 } }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "hi"], { cwd, home, env: s.env });
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("400");
    expect(out.stdout).toBe("");
  });

  it("a rejected key names the variable to check", async () => {
    const s = await simulatorEnv({
      script: [{ content: [{ type: "text", text: "x" }], fault: { kind: "http", status: 401 } }],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "hi"], { cwd, home, env: s.env });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/401[^\n]*\n {2}Check the API key: ANTHROPIC_API_KEY\./);
  });

  it("retries are reported on stderr: stdout holds only the answer", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [{ type: "text", text: "the answer" }],
          fault: { kind: "http", status: 529, retryAfterMs: 1 },
        },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "hi"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(out.stdout).toBe("the answer\n");
    expect(out.stderr).toMatch(/↻ .*529.*retrying in/);
  });

  it("--dump-requests writes each request and response body, with the key redacted", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "dumped" }] }] });
    sim = s.sim;
    const { cwd, home, root } = tempWorkspace();
    const dir = join(root, "dump");
    const out = await runMitsu(["-p", "--dump-requests", dir, "hi"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    const request = JSON.parse(readFileSync(join(dir, "0001-request.json"), "utf8"));
    expect(request.headers["x-api-key"]).toBe("<redacted>");
    expect(request.body.messages[0].role).toBe("user");
    // The response body is whole on disk by the time mitsu exits.
    expect(readFileSync(join(dir, "0001-response.txt"), "utf8")).toContain("event: message_stop");
  });
});

describe("mitsu -p --verbose", () => {
  it("reports cache reads and writes per model call and for the session", async () => {
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Glob", input: { pattern: "**/*.js" } }] },
        { content: [{ type: "text", text: "Two files." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(["-p", "--verbose", "list the files"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    const turns = [
      ...out.stderr.matchAll(/↳ turn (\d+): (\d+) in, (\d+) out, (\d+) cache read, (\d+) cache write/g),
    ];
    expect(turns.map((m) => m[1])).toEqual(["1", "2"]);
    // The first call writes the prefix to the cache; the second reads it back.
    expect(Number(turns[0]?.[5])).toBeGreaterThan(0);
    expect(Number(turns[1]?.[4])).toBe(sim.requests[1]?.usage?.cache_read_input_tokens);
    expect(Number(turns[1]?.[4])).toBeGreaterThan(0);
    expect(out.stderr).toMatch(/tokens: \d+ in, \d+ out, \d+ cache read, \d+ cache write/);
  });
});
