import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/harness/create-coding-agent.js";
import type { AgentEvent, AgentResult } from "../../src/loop/agent-event.js";
import type { PermissionMode } from "../../src/permissions/index.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";

// Issue 21, item 8: a PreToolUse hook answering "ask" skipped the deny rules; the user's yes then ran `rm`.

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  for (;;) if ((await run.next()).done) return;
}

async function runWithAskingHook(command: string, options: { mode?: PermissionMode } = {}) {
  sim = await startSimulator({
    script: [
      { content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command } }] },
      { content: [{ type: "text", text: "done" }] },
    ],
  });
  const root = mkdtempSync(join(tmpdir(), "mitsu-hook-ask-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "keep me\n");
  const asked: string[] = [];
  const agent = await createCodingAgent({
    cwd,
    home: join(root, "home"),
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    model: "anthropic:claude-sonnet-5-5",
    session: { log: false },
    disallowedTools: ["Bash(rm:*)"],
    ...(options.mode ? { permissionMode: options.mode } : {}),
    hooks: {
      PreToolUse: [
        {
          matcher: "Bash",
          callback: () => ({
            hookSpecificOutput: {
              permissionDecision: "ask" as const,
              permissionDecisionReason: "hook wants a look",
            },
          }),
        },
      ],
    },
    ask: async (request) => {
      asked.push(request.reason ?? "");
      return "allow_once";
    },
  });
  await drain(agent.prompt("go"));
  await agent.close();
  const result = JSON.stringify(sim.requests[1]?.body.messages.at(-1));
  return { cwd, asked, result };
}

describe("a PreToolUse hook's ask never lifts a deny rule", () => {
  it("with Bash(rm:*) denied, the user's yes to the hook's question does not run rm", async () => {
    const { cwd, asked, result } = await runWithAskingHook("rm notes.txt");
    expect(existsSync(join(cwd, "notes.txt"))).toBe(true);
    expect(result).toContain('denied by the rule \\"Bash(rm:*)\\"');
    // Nothing to ask about: the rule decides before the hook's question is put.
    expect(asked).toEqual([]);
  });

  it("nor in bypassPermissions mode", async () => {
    const { cwd, asked } = await runWithAskingHook("rm notes.txt", { mode: "bypassPermissions" });
    expect(existsSync(join(cwd, "notes.txt"))).toBe(true);
    expect(asked).toEqual([]);
  });

  it("a call no rule denies is still asked with the hook's reason, and runs on yes", async () => {
    const { cwd, asked } = await runWithAskingHook("touch made");
    expect(asked).toEqual(["hook wants a look"]);
    expect(existsSync(join(cwd, "made"))).toBe(true);
  });
});
