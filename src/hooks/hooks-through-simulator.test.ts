import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  bash,
  drain,
  simCodingAgent,
  text,
  toolResult,
  warningsOf,
} from "../../test/support/sim-coding-agent.js";
import type { CodingAgentOptions } from "../harness/coding-agent.js";
import { createCodingAgent } from "../harness/create-coding-agent.js";
import { trustFolder } from "../permissions/index.js";
import { type Simulator, startSimulator } from "../simulator/index.js";
import type { ScriptEntry } from "../simulator/types.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A workspace whose user settings (`~/.mitsu/settings.json`) hold `hooks`, and a simulator playing `script`. */
const setup = (script: ScriptEntry[], hooks: unknown, extra: Partial<CodingAgentOptions> = {}) =>
  simCodingAgent(script, hooks === undefined ? undefined : { hooks }, extra);

const on = (event: string, command: string, matcher?: string, timeout?: number) => ({
  [event]: [
    {
      ...(matcher ? { matcher } : {}),
      hooks: [{ type: "command", command, ...(timeout ? { timeout } : {}) }],
    },
  ],
});

describe("hooks through the harness and the simulator", () => {
  it("PreToolUse exit 2 blocks the call, also in bypassPermissions mode; stderr goes to the model", async () => {
    const { agent, sim, cwd } = await setup(
      [bash("touch made.txt"), text("ok")],
      on("PreToolUse", "cat > input.json; echo 'no shell today' >&2; exit 2", "Bash"),
      { permissionMode: "bypassPermissions" },
    );
    await drain(agent.prompt("make a file"));
    const result = toolResult(sim, 1);
    expect(result).toContain("no shell today");
    expect(result).toContain('"is_error":true');
    expect(() => readFileSync(join(cwd, "made.txt"))).toThrow();
    // The hook read the event on stdin, in the project folder.
    const input = JSON.parse(readFileSync(join(cwd, "input.json"), "utf8"));
    expect(input).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch made.txt" },
      tool_use_id: "toolu_b",
      cwd,
      permission_mode: "bypassPermissions",
    });
  });

  it("PreToolUse permissionDecision deny is final in bypass mode; a matcher that does not match runs nothing", async () => {
    const deny = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "policy says no",
      },
    });
    const { agent, sim } = await setup(
      [
        bash("echo hi"),
        { content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "notes.txt" } }] },
        text("ok"),
      ],
      { PreToolUse: [{ matcher: "Bash|Write", hooks: [{ type: "command", command: `echo '${deny}'` }] }] },
      { permissionMode: "bypassPermissions" },
    );
    await drain(agent.prompt("go"));
    expect(toolResult(sim, 1)).toContain("policy says no");
    expect(toolResult(sim, 2)).toContain("remember the milk");
  });

  it("PreToolUse updatedInput rewrites the call; a rewrite that breaks the schema is the call's error", async () => {
    const rewrite = JSON.stringify({
      hookSpecificOutput: { permissionDecision: "allow", updatedInput: { command: "echo rewritten" } },
    });
    const broken = JSON.stringify({ hookSpecificOutput: { updatedInput: { command: 42 } } });
    const { agent, sim } = await setup([bash("echo original"), bash("echo second", "toolu_c"), text("ok")], {
      PreToolUse: [
        {
          matcher: "Bash",
          hooks: [
            {
              type: "command",
              command: `if grep -q original; then echo '${rewrite}'; else echo '${broken}'; fi`,
            },
          ],
        },
      ],
    });
    // Default mode and no ask callback: only the hook's allow lets Bash run at all.
    await drain(agent.prompt("go"));
    expect(toolResult(sim, 1)).toContain("rewritten");
    expect(toolResult(sim, 1)).not.toContain("original");
    expect(toolResult(sim, 2)).toContain("not valid");
    expect(toolResult(sim, 2)).toContain('"is_error":true');
  });

  it("UserPromptSubmit: stdout and additionalContext reach the model; exit 2 blocks the prompt with stderr for the user", async () => {
    const first = await setup([text("noted")], {
      UserPromptSubmit: [
        { hooks: [{ type: "command", command: "echo 'today is hook day'" }] },
        {
          hooks: [
            {
              type: "command",
              command: `echo '${JSON.stringify({ hookSpecificOutput: { additionalContext: "ticket ABC-1" } })}'`,
            },
          ],
        },
      ],
      SessionStart: [
        {
          hooks: [
            { type: "command", command: 'echo "branch main; source $(jq -r .source 2>/dev/null || cat)"' },
          ],
        },
        // Claude Code's SessionStart matchers: the source, here "startup".
        { matcher: "startup", hooks: [{ type: "command", command: "echo 'fresh start'" }] },
        { matcher: "resume|compact", hooks: [{ type: "command", command: "echo 'resumed session'" }] },
      ],
    });
    await drain(first.agent.prompt("hello"));
    const sent = JSON.stringify(first.sim.requests[0]?.body.messages);
    expect(sent).toContain("today is hook day");
    expect(sent).toContain("ticket ABC-1");
    expect(sent).toContain("branch main");
    expect(sent).toContain("fresh start");
    expect(sent).not.toContain("resumed session");
    expect(sent).toContain("hello");
    await first.agent.close();
    await sim?.close();

    const second = await setup(
      [text("never")],
      on("UserPromptSubmit", "echo 'secrets in prompt' >&2; exit 2"),
    );
    const { events, result } = await drain(second.agent.prompt("my password is hunter2"));
    expect(second.sim.requests).toHaveLength(0);
    expect(result.messages).toEqual([]);
    expect(warningsOf(events).join("\n")).toContain("secrets in prompt");
    expect(events.at(-1)?.type).toBe("agent-end");
  });

  it("a hook that hangs is killed at its timeout, with its process group; the run goes on", async () => {
    const { agent, sim, root } = await setup(
      [bash("echo fine"), text("ok")],
      on("PreToolUse", `(sleep 30; touch ${join("..", "orphan")}) & sleep 30`, "Bash", 1),
      { permissionMode: "bypassPermissions" },
    );
    const started = Date.now();
    const { events } = await drain(agent.prompt("go"));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(warningsOf(events).join("\n")).toMatch(/timed out after 1 s/);
    expect(toolResult(sim, 1)).toContain("fine");
    await new Promise((r) => setTimeout(r, 300));
    expect(() => readFileSync(join(root, "orphan"))).toThrow();
  });

  it("a hook that crashes or answers nonsense is a notice; mitsu and the call go on", async () => {
    const { agent, sim } = await setup(
      [bash("echo fine"), text("ok")],
      {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command: "kill -SEGV $$" }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "echo '{\"decision\": 7}'" }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "exit 1" }] },
          { matcher: "Bash", hooks: [{ type: "command", command: "/no/such/program" }] },
        ],
      },
      { permissionMode: "bypassPermissions" },
    );
    const { events, result } = await drain(agent.prompt("go"));
    expect(result.reason).toBe("end_turn");
    const notices = warningsOf(events).join("\n");
    expect(notices).toContain("killed by SIGSEGV");
    expect(notices).toContain('"decision" must be');
    expect(notices).toContain("exited with code 1");
    expect(notices).toContain("exited with code 127");
    expect(toolResult(sim, 1)).toContain("fine");
  });

  it("PostToolUse sees the result; its block reason and additionalContext go to the model", async () => {
    const answer = JSON.stringify({
      decision: "block",
      reason: "lint failed: missing semicolon",
      hookSpecificOutput: { additionalContext: "3 files changed" },
    });
    const { agent, sim, cwd } = await setup(
      [bash("echo built"), text("ok")],
      on("PostToolUse", `cat > post.json; echo '${answer}'`, "Bash"),
      {
        permissionMode: "bypassPermissions",
      },
    );
    await drain(agent.prompt("go"));
    const result = toolResult(sim, 1);
    expect(result).toContain("built");
    expect(result).toContain("lint failed: missing semicolon");
    expect(result).toContain("3 files changed");
    expect(JSON.parse(readFileSync(join(cwd, "post.json"), "utf8")).tool_response).toMatchObject({
      content: expect.stringContaining("built"),
      is_error: false,
    });
  });

  it("Stop with decision block keeps the agent going once more; stop_hook_active is then true", async () => {
    const { agent, sim } = await setup(
      [text("done?"), text("really done")],
      on(
        "Stop",
        `if grep -q '"stop_hook_active":false'; then echo '{"decision":"block","reason":"run the tests first"}'; fi`,
      ),
    );
    const { result } = await drain(agent.prompt("go"));
    expect(sim.requests).toHaveLength(2);
    expect(JSON.stringify(sim.requests[1]?.body.messages.at(-1))).toContain("run the tests first");
    expect(result.lastMessage?.content).toEqual([{ type: "text", text: "really done" }]);
  });

  it("continue: false stops the agent with its stopReason", async () => {
    const { agent, sim } = await setup(
      [bash("echo a"), text("never")],
      on("PostToolUse", `echo '{"continue": false, "stopReason": "budget reached"}'`, "Bash"),
      { permissionMode: "bypassPermissions" },
    );
    const { events, result } = await drain(agent.prompt("go"));
    expect(sim.requests).toHaveLength(1);
    expect(result.reason).toBe("aborted");
    expect(warningsOf(events).join("\n")).toContain("budget reached");
  });

  it("the environment is scrubbed and names the project folder", async () => {
    const { agent, cwd } = await setup([text("ok")], on("UserPromptSubmit", "env > env.txt"));
    await drain(agent.prompt("go"));
    const env = readFileSync(join(cwd, "env.txt"), "utf8");
    expect(env).toContain(`MITSU_PROJECT_DIR=${cwd}`);
    expect(env).toContain(`CLAUDE_PROJECT_DIR=${cwd}`);
    expect(env).not.toContain("sim-key");
  });

  it("hooks get the session file's id and path, from SessionStart on, as Claude Code gives them", async () => {
    const ids: Array<{ event: string; id: string; path: string }> = [];
    const record = (input: { hook_event_name: string; session_id: string; transcript_path: string }) =>
      void ids.push({ event: input.hook_event_name, id: input.session_id, path: input.transcript_path });
    const { agent } = await setup([bash("echo hi"), text("ok")], undefined, {
      session: {},
      hooks: {
        SessionStart: [{ callback: record }],
        UserPromptSubmit: [{ callback: record }],
        PreToolUse: [{ callback: record }],
        Stop: [{ callback: record }],
      },
    });
    await drain(agent.prompt("go"));
    const id = agent.sessionId;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids.map((e) => e.event)).toEqual(["SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"]);
    expect(new Set(ids.map((e) => e.id))).toEqual(new Set([id]));
    expect(ids.at(-1)?.path).toBe(agent.sessionPath);
    await agent.close();
  });

  it("PreToolUse allow spares the question but not a deny rule, as in Claude Code", async () => {
    const asked: string[] = [];
    const allowAll = {
      PreToolUse: [
        {
          matcher: "Bash",
          callback: () => ({ hookSpecificOutput: { permissionDecision: "allow" as const } }),
        },
      ],
    };
    const { agent, sim, cwd } = await setup(
      [bash("rm notes.txt", "toolu_rm"), bash("touch made", "toolu_t"), text("ok")],
      undefined,
      {
        hooks: allowAll,
        disallowedTools: ["Bash(rm:*)"],
        ask: async (request) => {
          asked.push(request.display);
          return "allow_once";
        },
      },
    );
    await drain(agent.prompt("go"));
    expect(toolResult(sim, 1)).toContain('denied by the rule \\"Bash(rm:*)\\"');
    expect(existsSync(join(cwd, "notes.txt"))).toBe(true);
    expect(existsSync(join(cwd, "made"))).toBe(true);
    expect(asked).toEqual([]);
    await agent.close();
  });

  it("typed callbacks get the same inputs and give the same answers", async () => {
    const seen: string[] = [];
    const { agent, sim } = await setup([bash("echo original"), text("ok")], undefined, {
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            callback: (input) => {
              seen.push(`${input.hook_event_name}:${input.tool_name}`);
              return {
                hookSpecificOutput: {
                  permissionDecision: "allow",
                  updatedInput: { command: "echo from-callback" },
                },
              };
            },
          },
        ],
        UserPromptSubmit: [
          {
            callback: (input) => ({
              hookSpecificOutput: { additionalContext: `len ${input.prompt.length}` },
            }),
          },
        ],
        PostToolUse: [
          {
            callback: () => {
              throw new Error("callback broke");
            },
          },
        ],
        SessionEnd: [{ callback: (input) => void seen.push(`end:${input.reason}`) }],
      },
    });
    const { events } = await drain(agent.prompt("go"));
    expect(JSON.stringify(sim.requests[0]?.body.messages)).toContain("len 2");
    expect(toolResult(sim, 1)).toContain("from-callback");
    expect(warningsOf(events).join("\n")).toContain("callback broke");
    await agent.close();
    expect(seen).toEqual(["PreToolUse:Bash", "end:other"]);
  });

  it("a project's hooks run only in a trusted folder and once that file is approved; a changed file is asked about again", async () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-hooks-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(join(cwd, ".claude"), { recursive: true });
    const settings = join(cwd, ".claude", "settings.json");
    writeFileSync(settings, JSON.stringify({ hooks: on("UserPromptSubmit", "touch ran.txt") }));
    sim = await startSimulator({ script: [text("a"), text("b"), text("c"), text("d")] });
    const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
    const base = { cwd, home, env, model: "anthropic:claude-sonnet-5-5", session: { log: false } };
    const warnings: string[] = [];
    const skipped = await createCodingAgent({ ...base, onWarning: (m) => warnings.push(m) });
    await drain(skipped.prompt("go"));
    expect(() => readFileSync(join(cwd, "ran.txt"))).toThrow();
    expect(warnings.join("\n")).toContain("what its own files grant was ignored");
    expect(warnings.join("\n")).toContain("touch ran.txt");
    expect(warnings.join("\n")).toContain("not trusted");

    // Untrusted, the hooks question is never asked: approving a file is not trusting the folder.
    const asked: string[] = [];
    const untrusted = await createCodingAgent({
      ...base,
      approveHooks: async () => {
        asked.push("untrusted");
        return true;
      },
    });
    await drain(untrusted.prompt("go"));
    expect(() => readFileSync(join(cwd, "ran.txt"))).toThrow();
    expect(asked).toEqual([]);

    await trustFolder(cwd, { home });
    const approving = await createCodingAgent({
      ...base,
      approveHooks: async (file) => {
        asked.push(file.file);
        return true;
      },
    });
    await drain(approving.prompt("go"));
    readFileSync(join(cwd, "ran.txt"));
    expect(asked).toHaveLength(1);
    // Remembered: no question the next time; a changed file is asked about again.
    await createCodingAgent({
      ...base,
      approveHooks: async () => {
        asked.push("again");
        return false;
      },
    });
    expect(asked).toHaveLength(1);
    writeFileSync(settings, JSON.stringify({ hooks: on("UserPromptSubmit", "touch other.txt") }));
    const changed = await createCodingAgent({
      ...base,
      approveHooks: async () => {
        asked.push("changed");
        return false;
      },
    });
    expect(asked).toEqual([asked[0], "changed"]);
    expect(changed.hooks.skipped).toHaveLength(1);
  });

  it("the trust question lists a project's hooks; a yes trusts the folder and approves them as they are", async () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-hooks-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(join(cwd, ".mitsu"), { recursive: true });
    writeFileSync(
      join(cwd, ".mitsu", "settings.json"),
      JSON.stringify({ hooks: on("UserPromptSubmit", "touch ran.txt") }),
    );
    sim = await startSimulator({ script: [text("a"), text("b")] });
    const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
    const base = { cwd, home, env, model: "anthropic:claude-sonnet-5-5", session: { log: false } };
    const questions: string[][] = [];
    const agent = await createCodingAgent({
      ...base,
      askTrust: async (question) => {
        questions.push(question.grants);
        return true;
      },
      approveHooks: async () => {
        throw new Error("the trust question covered them");
      },
    });
    expect(questions).toHaveLength(1);
    expect(questions[0]?.join("\n")).toContain('hooks UserPromptSubmit "touch ran.txt"');
    await drain(agent.prompt("go"));
    readFileSync(join(cwd, "ran.txt"));
    // Remembered both ways: no question the next time, and the hooks run.
    rmSync(join(cwd, "ran.txt"));
    const again = await createCodingAgent({
      ...base,
      askTrust: async () => {
        throw new Error("already trusted");
      },
    });
    await drain(again.prompt("go"));
    readFileSync(join(cwd, "ran.txt"));
  });

  it("Notification hears of a permission question; SubagentStop of a sub-agent's end", async () => {
    const seen: string[] = [];
    const { agent } = await setup(
      [
        bash("touch x"),
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_t",
              name: "Task",
              input: { description: "look", prompt: "say hi", subagent_type: "general-purpose" },
            },
          ],
        },
        text("hi from the child"),
        text("ok"),
      ],
      undefined,
      {
        ask: async () => "deny",
        hooks: {
          Notification: [{ callback: (input) => void seen.push(input.message) }],
          SubagentStop: [{ callback: (input) => void seen.push(`${input.hook_event_name}`) }],
        },
      },
    );
    await drain(agent.prompt("go"));
    expect(seen).toEqual(["mitsu needs your permission to use Bash", "SubagentStop"]);
  });
});
