import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ScriptEntry } from "../../src/simulator/index.js";
import { FORM_SERVER } from "../mcp/mcp-fixtures.js";
import { readJsonLines } from "../support/json-lines.js";
import { type PtyMitsu, ptyRuns } from "../support/pty.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const ask = (form: string) => ({
  content: [{ type: "tool_use" as const, name: "mcp__form__ask", input: { form } }],
});

const pty = ptyRuns();

/** A workspace whose user MCP config runs the form server (its answers logged), with its tool allowed. */
async function world(script: ScriptEntry[]) {
  const where = tempWorkspace();
  const log = join(where.root, "answers.jsonl");
  const asked = join(where.root, "asked.txt");
  mkdirSync(join(where.home, ".mitsu"), { recursive: true });
  writeFileSync(
    join(where.home, ".mitsu", "mcp.json"),
    JSON.stringify({
      mcpServers: {
        form: { command: process.execPath, args: [FORM_SERVER], env: { FORM_LOG: log, FORM_ASKED: asked } },
      },
    }),
  );
  const s = await simulatorEnv({ script });
  pty.serve(s);
  const env = { PATH: process.env.PATH, HOME: where.home, ...s.env };
  const answers = () => readJsonLines(log);
  return { ...where, sim: s.sim, env, answers, asked: () => existsSync(asked) };
}

async function interactive(script: ScriptEntry[]) {
  const w = await world(script);
  const m = pty.spawn(["--allowedTools", "mcp__form"], { cwd: w.cwd, env: w.env });
  await m.waitFor("/help for commands");
  return { ...w, m };
}

async function send(m: PtyMitsu, prompt: string): Promise<void> {
  await m.type(prompt);
  m.press("enter");
}

describe("an MCP server's elicitation at the terminal", () => {
  it("asks one field at a time, refuses what does not fit, and the server receives exactly what was typed", async () => {
    const t = await interactive([ask("booking"), text("Booked.")]);
    await send(t.m, "book a table");
    await t.m.waitFor("MCP server form asks for input");
    expect(t.m.screen()).toContain("Book a table at Chez Mitsu");
    await t.m.waitFor("1/5 Your name *");
    await t.m.type("A");
    t.m.press("enter");
    await t.m.waitFor("Your name must be at least 2 characters");
    await t.m.type("da L.");
    t.m.press("enter");
    await t.m.waitFor("2/5 Email");
    await t.m.type("ada@example.org");
    t.m.press("enter");
    await t.m.waitFor("3/5 People *");
    await t.m.type("4o");
    t.m.press("enter");
    await t.m.waitFor("People must be a number");
    t.m.press("backspace");
    t.m.press("backspace");
    await t.m.type("40");
    t.m.press("enter");
    await t.m.waitFor("People must be at most 12");
    t.m.press("backspace");
    t.m.press("enter");
    await t.m.waitFor("4/5 Terrace");
    await t.m.type("n");
    t.m.press("enter");
    await t.m.waitFor("5/5 Time");
    expect(t.m.screen()).toContain("Nine o'clock");
    // Nothing is picked at first: Down picks the first, Down again the second.
    t.m.press("down");
    t.m.press("down");
    t.m.press("enter");
    await t.m.waitFor("Booked.");
    expect(t.m.screen()).toContain("input for MCP server form: answered");
    const content = { name: "Ada L.", email: "ada@example.org", people: 4, terrace: false, time: "21:00" };
    expect(t.answers()).toEqual([{ form: "booking", answer: { action: "accept", content } }]);
    const result = JSON.stringify(t.sim.requests[1]?.body.messages.at(-1).content);
    expect(result).toContain(JSON.stringify(JSON.stringify({ action: "accept", content })).slice(1, -1));
  });

  it("Esc declines; escape sequences in the server's message and titles are stripped before drawing", async () => {
    const t = await interactive([ask("hostile"), text("Declined, fine.")]);
    await send(t.m, "go");
    await t.m.waitFor("MCP server form asks for input");
    await t.m.waitFor("1/1 Token *");
    // The clear-screen, colour, title and hyperlink sequences were removed, not run: the text around them stays.
    expect(t.m.screen()).toContain("HelloREDevil");
    expect(t.m.screen()).toContain("second line");
    t.m.press("escape");
    await t.m.waitFor("Declined, fine.");
    expect(t.m.screen()).toContain("input for MCP server form: declined");
    expect(t.answers()).toEqual([{ form: "hostile", answer: { action: "decline" } }]);
  });

  it("an elicitation while a permission question is open waits for it (one dialog at a time), then is asked", async () => {
    const t = await interactive([
      {
        content: [
          { type: "tool_use", name: "Bash", input: { command: "touch side.txt" } },
          { type: "tool_use", name: "mcp__form__ask", input: { form: "hostile" } },
        ],
      },
      text("Both done."),
    ]);
    await send(t.m, "go");
    const permission = () => t.m.screen().includes("Do you want to proceed?");
    const form = () => t.m.screen().includes("1/1 Token *");
    // Both questions are open at once (the server has sent its question); whichever came first is shown alone.
    await t.m.waitFor(() => t.asked() && (permission() || form()));
    const formFirst = form();
    expect(permission() && form()).toBe(false);
    const answerForm = async () => {
      await t.m.waitFor("1/1 Token *");
      await t.m.type("tok-1");
      t.m.press("enter");
    };
    const answerPermission = async () => {
      await t.m.waitFor("Do you want to proceed?");
      await t.m.type("1");
    };
    if (formFirst) {
      await answerForm();
      await answerPermission();
    } else {
      await answerPermission();
      await answerForm();
    }
    await t.m.waitFor("Both done.");
    expect(t.answers()).toEqual([
      { form: "hostile", answer: { action: "accept", content: { token: "tok-1" } } },
    ]);
    expect(existsSync(join(t.cwd, "side.txt"))).toBe(true);
  });

  it("Ctrl-C while the form is open stops the run and withdraws the question: the server gets a cancel", async () => {
    const t = await interactive([ask("booking"), text("Next.")]);
    await send(t.m, "book");
    await t.m.waitFor("1/5 Your name *");
    await t.m.type("Ad");
    t.m.press("ctrl-c");
    await t.m.waitFor(() => t.answers().length === 1);
    expect(t.answers()).toEqual([{ form: "booking", answer: { action: "cancel" } }]);
    await t.m.waitFor("input for MCP server form: cancelled");
  });

  it("an elicitation that comes after its call was cancelled is declined without a dialog", async () => {
    const t = await interactive([ask("late"), text("Next.")]);
    await send(t.m, "go");
    await t.m.waitFor("esc to interrupt");
    await t.m.waitFor(() => t.sim.requests.length === 1);
    // The call must have reached the server before it is cancelled (on a busy machine the Esc came first, and the
    // server, never called, never asked).
    await t.m.waitFor(() => t.asked());
    t.m.press("escape");
    await t.m.waitFor("interrupted");
    await t.m.waitFor(() => t.answers().length === 2);
    expect(t.answers()[1]).toEqual({ form: "late", answer: { action: "decline" } });
    expect(t.m.screen()).not.toContain("asks for input");
  });
});

describe("an MCP server's elicitation in print mode", () => {
  it("is declined, with one line on stderr naming the server", async () => {
    const w = await world([ask("booking"), text("Could not book.")]);
    const r = await runMitsu(["-p", "--allowedTools", "mcp__form", "book"], w);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Could not book.");
    const lines = r.stderr.split("\n").filter((l) => l.includes("asked for input"));
    expect(lines).toEqual([
      '⚠ MCP server "form" asked for input; declined: nobody can answer here (print mode).',
    ]);
    expect(w.answers()).toEqual([{ form: "booking", answer: { action: "decline" } }]);
  });
});
