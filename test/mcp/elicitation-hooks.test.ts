import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodingAgent } from "../../src/harness/create-coding-agent.js";
import type { AgentEvent, AgentResult } from "../../src/loop/agent-event.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";

// Claude Code's Elicitation and ElicitationResult hooks around an MCP server's question (here with nobody to ask).

const FORM_SERVER = join(import.meta.dirname, "form-server.mjs");
let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const GOOD = { name: "Ada", people: 2 };
const output = (event: string, answer: Record<string, unknown>) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: event, ...answer } });

/** The booking form asked with `hooks` in the user's settings; what the server got, and the warnings. */
async function book(hooks: Record<string, unknown>) {
  sim = await startSimulator({
    script: [
      { content: [{ type: "tool_use", name: "mcp__form__ask", input: { form: "booking" } }] },
      { content: [{ type: "text", text: "ok" }] },
    ],
  });
  const root = mkdtempSync(join(tmpdir(), "mitsu-elicit-hooks-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  const log = join(root, "answers.jsonl");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  writeFileSync(join(home, ".mitsu", "settings.json"), JSON.stringify({ hooks }));
  const config = join(root, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { form: { command: process.execPath, args: [FORM_SERVER], env: { FORM_LOG: log } } },
    }),
  );
  const warnings: string[] = [];
  const agent = await createCodingAgent({
    cwd,
    home,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    model: "anthropic:claude-sonnet-5-5",
    session: { log: false },
    allowedTools: ["mcp__form"],
    mcp: { configFiles: [config] },
    onWarning: (m) => warnings.push(m),
  });
  const run = agent.prompt("book");
  for (;;) {
    const next: IteratorResult<AgentEvent, AgentResult> = await run.next();
    if (next.done) break;
    if (next.value.type === "warning") warnings.push(next.value.message);
  }
  await agent.close?.();
  const answers = existsSync(log)
    ? readFileSync(log, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).answer)
    : [];
  return { answers, warnings, cwd };
}

const hook = (event: string, command: string, matcher = "form") => ({
  [event]: [{ matcher, hooks: [{ type: "command", command }] }],
});

describe("Elicitation and ElicitationResult hooks", () => {
  it("an Elicitation hook answers in the user's place (even with nobody to ask), reading the server's form", async () => {
    const accept = output("Elicitation", { action: "accept", content: GOOD });
    const { answers, warnings, cwd } = await book(hook("Elicitation", `cat > input.json; echo '${accept}'`));
    expect(answers).toEqual([{ action: "accept", content: GOOD }]);
    expect(JSON.stringify(warnings)).not.toContain("asked for input");
    expect(JSON.parse(readFileSync(join(cwd, "input.json"), "utf8"))).toMatchObject({
      hook_event_name: "Elicitation",
      mcp_server_name: "form",
      message: "Book a table at Chez Mitsu",
      mode: "form",
      requested_schema: { required: ["name", "people"] },
    });
  });

  it("a hook's content that does not fit the form is not sent: declined, with a warning", async () => {
    const accept = output("Elicitation", { action: "accept", content: { name: "Ada", people: 99 } });
    const { answers, warnings } = await book(hook("Elicitation", `echo '${accept}'`));
    expect(answers).toEqual([{ action: "decline" }]);
    expect(JSON.stringify(warnings)).toContain("People must be at most 12");
  });

  it("an ElicitationResult hook changes the answer before it is sent; a hook for another server is not run", async () => {
    const accept = output("Elicitation", { action: "accept", content: GOOD });
    const cancel = output("ElicitationResult", { action: "cancel" });
    const { answers, cwd } = await book({
      ...hook("Elicitation", `echo '${accept}'`),
      ...hook("ElicitationResult", `cat > result.json; echo '${cancel}'`),
    });
    expect(answers).toEqual([{ action: "cancel" }]);
    expect(JSON.parse(readFileSync(join(cwd, "result.json"), "utf8"))).toMatchObject({
      hook_event_name: "ElicitationResult",
      mcp_server_name: "form",
      action: "accept",
      content: GOOD,
    });
    const other = await book(hook("Elicitation", `echo '${accept}'`, "other-server"));
    expect(other.answers).toEqual([{ action: "decline" }]);
  });
});
