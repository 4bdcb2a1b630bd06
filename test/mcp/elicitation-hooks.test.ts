import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { drain, simCodingAgent } from "../support/sim-coding-agent.js";
import { FORM_SERVER } from "./mcp-fixtures.js";

// Claude Code's Elicitation and ElicitationResult hooks around an MCP server's question (here with nobody to ask).

const GOOD = { name: "Ada", people: 2 };
const output = (event: string, answer: Record<string, unknown>) =>
  JSON.stringify({ hookSpecificOutput: { hookEventName: event, ...answer } });

/** The booking form asked with `hooks` in the user's settings; what the server got, and the warnings. */
async function book(hooks: Record<string, unknown>) {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-elicit-hooks-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, "answers.jsonl");
  const config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { form: { command: process.execPath, args: [FORM_SERVER], env: { FORM_LOG: log } } },
    }),
  );
  const { agent, cwd, warnings } = await simCodingAgent(
    [
      { content: [{ type: "tool_use", name: "mcp__form__ask", input: { form: "booking" } }] },
      { content: [{ type: "text", text: "ok" }] },
    ],
    { hooks },
    { allowedTools: ["mcp__form"], mcp: { configFiles: [config] } },
  );
  const { events } = await drain(agent.prompt("book"));
  // The agent's warnings (onWarning) and the run's, together.
  for (const e of events) if (e.type === "warning") warnings.push(e.message);
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
