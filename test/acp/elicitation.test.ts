import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CreateElicitationRequest } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { FORM_SERVER } from "../mcp/mcp-fixtures.js";
import { readJsonLines } from "../support/json-lines.js";
import { type AcpRun, answerText, startAcp, waitFor } from "./acp-harness.js";

const ELICIT_SERVER = join(import.meta.dirname, "..", "mcp", "elicit-server.mjs");
const GOOD = { name: "Ada", email: "ada@example.org", people: 4, terrace: true, time: "19:00" };
const ALLOW = { outcome: { outcome: "selected" as const, optionId: "allow_once" } };

/** A session whose model calls the form server's `ask` with the booking form, then says "Done."; a log of answers. */
async function book(run: AcpRun, during?: (sessionId: string) => Promise<void>) {
  const log = join(run.cwd, "..", "answers.jsonl");
  run.sim.enqueue(
    { content: [{ type: "tool_use", id: "ask", name: "mcp__form__ask", input: { form: "booking" } }] },
    { content: [{ type: "text", text: "Done." }] },
  );
  const { sessionId } = await run.connection.agent.request("session/new", {
    cwd: run.cwd,
    mcpServers: [
      {
        name: "form",
        command: process.execPath,
        args: [FORM_SERVER],
        env: [{ name: "FORM_LOG", value: log }],
      },
    ],
  });
  const prompt = run.connection.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "book" }],
  });
  await during?.(sessionId);
  const { stopReason } = await prompt;
  if (during) await waitFor(() => existsSync(log), 10_000, "the server's answer");
  const answers = readJsonLines(log);
  return { sessionId, answers, stopReason };
}

describe("an MCP server's elicitation in an ACP editor", () => {
  it("an editor that offers form elicitation is asked (elicitation/create); the server gets its content", async () => {
    const asked: CreateElicitationRequest[] = [];
    const run = await startAcp([], {
      permission: () => ALLOW,
      extend: (app) => {
        app.onRequest("elicitation/create", async ({ params }) => {
          asked.push(params);
          return asked.length === 1
            ? { action: "accept", content: { ...GOOD, people: 0 } }
            : { action: "accept", content: GOOD };
        });
        return { elicitation: { form: {} } };
      },
    });
    const { sessionId, answers } = await book(run);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toMatchObject({ sessionId, mode: "form", message: "Book a table at Chez Mitsu" });
    expect(asked[1]?.message).toBe("Book a table at Chez Mitsu\n\n(Refused: People must be at least 1)");
    expect(answers).toEqual([{ form: "booking", answer: { action: "accept", content: GOOD } }]);
  });

  it("an editor without it is told in the conversation, and the server's question is declined", async () => {
    const run = await startAcp([], { permission: () => ALLOW });
    const { sessionId, answers } = await book(run);
    expect(answerText(run, sessionId)).toContain(
      'MCP server "form" asked for input; declined: this editor does not show forms.',
    );
    expect(answers).toEqual([{ form: "booking", answer: { action: "decline" } }]);
  });

  it("a server asking 100 times of an editor without forms: the editor is told once, each question declined", async () => {
    const run = await startAcp([], { permission: () => ALLOW });
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "flood", name: "mcp__elicit__flood", input: {} }] },
      { content: [{ type: "text", text: "Done." }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", {
      cwd: run.cwd,
      mcpServers: [{ name: "elicit", command: process.execPath, args: [ELICIT_SERVER], env: [] }],
    });
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    const text = answerText(run, sessionId);
    expect(text.split("asked for input; declined").length - 1).toBe(1);
    expect(JSON.stringify(run.sim.requests[1]?.body.messages.at(-1))).toContain('\\"decline\\":100');
  });

  it("a cancel while the editor's form is open withdraws it; the server gets a cancel, the turn ends cancelled", async () => {
    let asked = false;
    let withdrawn = false;
    const run = await startAcp([], {
      permission: () => ALLOW,
      extend: (app) => {
        app.onRequest("elicitation/create", ({ signal }) => {
          asked = true;
          return new Promise((resolve) =>
            signal.addEventListener("abort", () => {
              withdrawn = true;
              resolve({ action: "cancel" });
            }),
          );
        });
        return { elicitation: { form: {} } };
      },
    });
    const { answers, stopReason } = await book(run, async (sessionId) => {
      await waitFor(() => asked, 20_000, "the form");
      await run.connection.agent.notify("session/cancel", { sessionId });
    });
    expect(stopReason).toBe("cancelled");
    expect(withdrawn).toBe(true);
    expect(answers).toEqual([{ form: "booking", answer: { action: "cancel" } }]);
  });
});
