import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  bash,
  drain,
  simCodingAgent,
  text,
  toolResult,
  warningsOf,
} from "../../test/support/sim-coding-agent.js";

// PostToolUseFailure, PermissionRequest, the `if` field and `http` hooks, as Claude Code documents them.

const hook = (event: string, entry: Record<string, unknown>, matcher?: string) => ({
  [event]: [{ ...(matcher ? { matcher } : {}), hooks: [entry] }],
});
const command = (c: string, more: Record<string, unknown> = {}) => ({ type: "command", command: c, ...more });

/**
 * A loopback server that records each request and answers with `answer(body)` (undefined: never answers); closed
 * when the test ends.
 */
async function listen(answer: (body: string) => { status: number; body: string } | undefined) {
  const seen: Array<{ headers: IncomingHttpHeaders; body: unknown; method?: string }> = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({
        headers: req.headers,
        body: JSON.parse(body),
        ...(req.method ? { method: req.method } : {}),
      });
      const reply = answer(body);
      if (reply) res.writeHead(reply.status, { "content-type": "application/json" }).end(reply.body);
    });
  });
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

describe("Claude Code's later hook events and hook fields, through the harness and the simulator", () => {
  it("PostToolUseFailure hears of a failed call (Claude Code's fields) and its additionalContext reaches the model", async () => {
    const answer = JSON.stringify({
      hookSpecificOutput: { hookEventName: "PostToolUseFailure", additionalContext: "try notes.txt instead" },
    });
    const { agent, sim, cwd } = await simCodingAgent(
      [
        { content: [{ type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "missing.txt" } }] },
        { content: [{ type: "tool_use", id: "toolu_ok", name: "Read", input: { file_path: "notes.txt" } }] },
        text("ok"),
      ],
      {
        hooks: {
          ...hook("PostToolUseFailure", command(`cat >> failures.jsonl; echo '${answer}'`), "Read"),
          ...hook("PostToolUse", command("cat >> successes.jsonl"), "Read"),
        },
      },
    );
    await drain(agent.prompt("read it"));
    expect(toolResult(sim, 1)).toContain("try notes.txt instead");
    expect(toolResult(sim, 1)).toContain('"is_error":true');
    const failures = readFileSync(join(cwd, "failures.jsonl"), "utf8").trim().split("\n");
    expect(failures).toHaveLength(1);
    const input = JSON.parse(failures[0] as string);
    expect(input).toMatchObject({
      hook_event_name: "PostToolUseFailure",
      tool_name: "Read",
      tool_input: { file_path: "missing.txt" },
      tool_use_id: "toolu_r",
      is_interrupt: false,
    });
    expect(typeof input.error).toBe("string");
    expect(input.error.length).toBeGreaterThan(0);
    // The call that succeeded went to PostToolUse, not to PostToolUseFailure.
    expect(readFileSync(join(cwd, "successes.jsonl"), "utf8")).toContain("toolu_ok");
    expect(toolResult(sim, 2)).not.toContain("try notes.txt instead");
  });

  it("PermissionRequest allow answers the question in the user's place (no one to ask here), with updatedInput", async () => {
    const allow = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: { behavior: "allow", updatedInput: { command: "touch rewritten.txt" } },
      },
    });
    const { agent, cwd } = await simCodingAgent([bash("touch made.txt"), text("ok")], {
      hooks: hook("PermissionRequest", command(`cat > request.json; echo '${allow}'`), "Bash"),
    });
    await drain(agent.prompt("make a file"));
    expect(existsSync(join(cwd, "rewritten.txt"))).toBe(true);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    const input = JSON.parse(readFileSync(join(cwd, "request.json"), "utf8"));
    expect(input).toMatchObject({
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "touch made.txt" },
      permission_mode: "default",
    });
    expect(input.permission_suggestions?.[0]).toMatchObject({ type: "addRules", behavior: "allow" });
  });

  it("PermissionRequest also answers the question a PreToolUse hook's ask raises; its new input is checked again", async () => {
    const ask = JSON.stringify({ hookSpecificOutput: { permissionDecision: "ask" } });
    const allow = (command: string) =>
      JSON.stringify({ hookSpecificOutput: { decision: { behavior: "allow", updatedInput: { command } } } });
    const { agent, sim, cwd } = await simCodingAgent(
      [bash("echo one"), bash("echo two", "toolu_c"), text("ok")],
      {
        permissions: { deny: ["Bash(touch denied.txt)"] },
        hooks: {
          ...hook("PreToolUse", command(`echo '${ask}'`), "Bash"),
          ...hook(
            "PermissionRequest",
            command(
              `if grep -q one; then echo '${allow("touch allowed.txt")}'; else echo '${allow("touch denied.txt")}'; fi`,
            ),
            "Bash",
          ),
        },
      },
      { permissionMode: "bypassPermissions" },
    );
    await drain(agent.prompt("go"));
    expect(existsSync(join(cwd, "allowed.txt"))).toBe(true);
    expect(existsSync(join(cwd, "denied.txt"))).toBe(false);
    expect(toolResult(sim, 2)).toContain("Bash(touch denied.txt)");
  });

  it("PermissionRequest: a hook that decides nothing leaves print mode's denial in place", async () => {
    const { agent, sim, cwd } = await simCodingAgent([bash("touch made.txt"), text("ok")], {
      hooks: hook("PermissionRequest", command("cat > request.json"), "Bash"),
    });
    await drain(agent.prompt("make a file"));
    expect(existsSync(join(cwd, "request.json"))).toBe(true);
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(toolResult(sim, 1)).toContain("no PermissionRequest hook allowed it");
  });

  it("PermissionRequest: a deny rule wins over the hook's allow (the hook is not even asked); deny carries its message", async () => {
    const allow = JSON.stringify({ hookSpecificOutput: { decision: { behavior: "allow" } } });
    const deny = JSON.stringify({
      hookSpecificOutput: { decision: { behavior: "deny", message: "not on fridays" } },
    });
    const { agent, sim, cwd } = await simCodingAgent(
      [bash("touch denied.txt"), bash("rm notes.txt", "toolu_c"), text("ok")],
      {
        permissions: { deny: ["Bash(touch denied.txt)"] },
        hooks: {
          PermissionRequest: [
            {
              matcher: "Bash",
              hooks: [
                command(
                  `if grep -q denied; then echo asked > asked.txt; echo '${allow}'; else echo '${deny}'; fi`,
                ),
              ],
            },
          ],
        },
      },
    );
    await drain(agent.prompt("go"));
    expect(existsSync(join(cwd, "denied.txt"))).toBe(false);
    expect(existsSync(join(cwd, "asked.txt"))).toBe(false);
    expect(toolResult(sim, 1)).toContain("Bash(touch denied.txt)");
    expect(existsSync(join(cwd, "notes.txt"))).toBe(true);
    expect(toolResult(sim, 2)).toContain("not on fridays");
  });

  it("the if field runs a hook only for calls its permission rule matches; on a non-tool event it is a warning", async () => {
    const { agent, cwd, warnings } = await simCodingAgent(
      [bash("echo hi"), bash("git status; touch x.txt", "toolu_c"), bash("ls", "toolu_d"), text("ok")],
      {
        hooks: {
          ...hook("PreToolUse", command("cat >> seen.jsonl", { if: "Bash(touch *)" }), "Bash"),
          ...hook("UserPromptSubmit", command("echo never > prompt.txt", { if: "Bash(ls)" })),
        },
      },
      { permissionMode: "bypassPermissions" },
    );
    await drain(agent.prompt("go"));
    const seen = readFileSync(join(cwd, "seen.jsonl"), "utf8").trim().split("\n");
    // Only the compound line with a `touch` command in it.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain("toolu_c");
    expect(existsSync(join(cwd, "prompt.txt"))).toBe(false);
    expect(warnings.join("\n")).toMatch(/UserPromptSubmit: "if" applies to tool events only/);
  });

  it("an http hook gets the input POSTed, with only the allowed variables in its headers; its answer blocks", async () => {
    const deny = JSON.stringify({
      hookSpecificOutput: { permissionDecision: "deny", permissionDecisionReason: "the server says no" },
    });
    const { url, seen } = await listen(() => ({ status: 200, body: deny }));
    const { agent, sim, cwd } = await simCodingAgent(
      [bash("touch made.txt"), text("ok")],
      {
        hooks: hook(
          "PreToolUse",
          {
            type: "http",
            url,
            headers: { Authorization: "Bearer $HOOK_TOKEN", "X-Other": ["[$", "{NOT_LISTED}]"].join("") },
            allowedEnvVars: ["HOOK_TOKEN"],
            timeout: 10,
          },
          "Bash",
        ),
      },
      { permissionMode: "bypassPermissions", env: { HOOK_TOKEN: "tok-123", NOT_LISTED: "secret-456" } },
    );
    await drain(agent.prompt("make a file"));
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(toolResult(sim, 1)).toContain("the server says no");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.method).toBe("POST");
    expect(seen[0]?.headers.authorization).toBe("Bearer tok-123");
    expect(seen[0]?.headers["x-other"]).toBe("[]");
    expect(seen[0]?.body).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "touch made.txt" },
    });
  });

  it("an http hook that answers non-2xx or not in time is a notice, and the call goes on", async () => {
    const { url } = await listen((body) =>
      body.includes("toolu_slow") ? undefined : { status: 500, body: "boom" },
    );
    const { agent, cwd } = await simCodingAgent(
      [bash("touch a.txt"), bash("touch b.txt", "toolu_slow"), text("ok")],
      { hooks: hook("PreToolUse", { type: "http", url, timeout: 1 }, "Bash") },
      { permissionMode: "bypassPermissions" },
    );
    const { events } = await drain(agent.prompt("go"));
    expect(existsSync(join(cwd, "a.txt"))).toBe(true);
    expect(existsSync(join(cwd, "b.txt"))).toBe(true);
    const notices = warningsOf(events).join("\n");
    expect(notices).toContain("answered HTTP 500: boom");
    expect(notices).toContain("timed out after 1 s");
  });

  it("a prompt hook asks a model with the event's JSON in $ARGUMENTS; {ok: false} blocks with its reason", async () => {
    const { agent, sim, cwd } = await simCodingAgent(
      [
        bash("touch made.txt"),
        text('{"ok": false, "reason": "no files on fridays"}'),
        bash("touch other.txt", "toolu_c"),
        text('{"ok": true}'),
        text("done"),
      ],
      {
        hooks: hook("PreToolUse", { type: "prompt", prompt: "Is this call safe? $ARGUMENTS" }, "Bash"),
      },
      { permissionMode: "bypassPermissions" },
    );
    await drain(agent.prompt("make files"));
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(toolResult(sim, 2)).toContain("no files on fridays");
    // The judge's request: the prompt with the event's JSON in place of $ARGUMENTS, and no tools.
    const judged = JSON.stringify(sim.requests[1]?.body.messages);
    expect(judged).toContain("Is this call safe?");
    expect(judged).toContain('\\"tool_name\\":\\"Bash\\"');
    expect(judged).toContain("touch made.txt");
    expect(sim.requests[1]?.body.tools ?? []).toHaveLength(0);
    // {ok: true} raises no objection.
    expect(existsSync(join(cwd, "other.txt"))).toBe(true);
  });
  it("an agent hook: a read-only sub-agent (Read, Grep, Glob) looks, then answers {ok, reason}; its attempt to write is refused", async () => {
    const { agent, sim, cwd } = await simCodingAgent(
      [
        bash("touch made.txt"),
        // The hook's sub-agent tries to write, then to run a shell, then reads, then judges.
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_w",
              name: "Write",
              input: { file_path: "pwned.txt", content: "owned" },
            },
            { type: "tool_use", id: "toolu_x", name: "Bash", input: { command: "touch bash-ran.txt" } },
          ],
        },
        {
          content: [
            { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: "notes.txt" } },
            { type: "tool_use", id: "toolu_s", name: "Read", input: { file_path: "secret.txt" } },
          ],
        },
        text('{"ok": false, "reason": "the notes say no shell today"}'),
        text("done"),
      ],
      {
        hooks: hook("PreToolUse", { type: "agent", prompt: "Do the notes allow this? $ARGUMENTS" }, "Bash"),
      },
      { permissionMode: "bypassPermissions", disallowedTools: ["Read(./secret.txt)"] },
    );
    writeFileSync(join(cwd, "secret.txt"), "TOP-SECRET\n");
    await drain(agent.prompt("make a file"));
    expect(existsSync(join(cwd, "made.txt"))).toBe(false);
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
    expect(existsSync(join(cwd, "bash-ran.txt"))).toBe(false);
    // The sub-agent's requests: only the three looking tools, the prompt with the event's JSON.
    const first = sim.requests[1]?.body;
    expect(first?.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Grep", "Glob"]);
    expect(JSON.stringify(first?.messages)).toContain("Do the notes allow this?");
    expect(JSON.stringify(first?.messages)).toContain("touch made.txt");
    const refused = JSON.stringify(sim.requests[2]?.body.messages.at(-1));
    expect(refused).toContain('"is_error":true');
    const looked = JSON.stringify(sim.requests[3]?.body.messages.at(-1));
    expect(looked).toContain("remember the milk");
    // A Read deny rule holds for the hook's sub-agent too.
    expect(looked).not.toContain("TOP-SECRET");
    // Its verdict blocks the call, with its reason.
    expect(toolResult(sim, 4)).toContain("the notes say no shell today");
  });
});
