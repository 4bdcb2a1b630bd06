import { describe, expect, it, onTestFinished } from "vitest";
import { askElicitation } from "../../src/harness/ask-elicitation.js";
import { type Asker, Questions } from "../../src/harness/asker.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import type { McpElicit, McpElicitationRequest } from "../../src/mcp/mcp-elicitation.js";
import { nodeServer, FORM_SERVER as SERVER } from "./mcp-fixtures.js";

/** Calls the form server's `ask` with `form`, answered through the seam as the harness wires it. */
async function ask(
  form: string,
  how: { asker?: Asker; embedder?: McpElicit; warnings?: string[]; notices?: string[] },
): Promise<{ action?: string; content?: Record<string, unknown> }> {
  const asker = how.asker && { ...how.asker, notify: (m: string) => how.notices?.push(m) };
  const questions = Questions.from(asker, {});
  const elicit = askElicitation(questions, how.embedder, (m) => how.warnings?.push(m));
  // Each call's servers are closed when the test ends (a test may ask several times).
  const servers = await connectMcpServers(
    { form: nodeServer(SERVER) },
    { logDir: false, env: { PATH: process.env.PATH }, elicit },
  );
  onTestFinished(() => servers.close());
  const tool = servers.tools.find((t) => t.name === "mcp__form__ask")!;
  const result = await tool.run(
    { form } as never,
    { signal: new AbortController().signal, toolUseId: "t", state: new ToolState() } as never,
  );
  return JSON.parse((result as { content: string }).content);
}

/** An Asker answering the elicitation question with each of `answers` in turn. */
function answering(...answers: unknown[]): Asker & { asked: McpElicitationRequest[] } {
  const asked: McpElicitationRequest[] = [];
  return {
    asked,
    ask(question) {
      if (question.kind !== "elicitation") return undefined;
      asked.push(question.request);
      return answers.shift() as never;
    },
  };
}

const GOOD = { name: "Ada", email: "ada@example.org", people: 4, terrace: true, time: "21:00" };

describe("MCP elicitation through the Asker seam", () => {
  it("sends exactly the content the front-end gave, once it fits the form", async () => {
    const asker = answering({ action: "accept", content: GOOD });
    expect(await ask("booking", { asker })).toEqual({ action: "accept", content: GOOD });
    expect(asker.asked.map((r) => [r.server, r.message])).toEqual([["form", "Book a table at Chez Mitsu"]]);
  });

  it("refuses content that does not fit, says why and asks again; three misfits decline", async () => {
    const notices: string[] = [];
    const asker = answering(
      { action: "accept", content: { ...GOOD, people: 40 } },
      { action: "accept", content: { name: "Ada" } },
      { action: "accept", content: GOOD },
    );
    expect(await ask("booking", { asker, notices })).toEqual({ action: "accept", content: GOOD });
    expect(asker.asked.map((r) => r.error)).toEqual([
      undefined,
      "People must be at most 12",
      "People is required",
    ]);
    expect(notices[0]).toContain("People must be at most 12");

    const bad = [
      { action: "accept", content: { ...GOOD, email: "nope" } },
      { action: "accept", content: { ...GOOD, time: "20:00" } },
      { action: "accept", content: { ...GOOD, extra: { nested: true } } },
    ];
    const refused = answering(...bad);
    expect(await ask("booking", { asker: refused })).toEqual({ action: "decline" });
    expect(refused.asked.map((r) => r.error)).toEqual([
      undefined,
      "Email must be an email address",
      "Time must be one of: 19:00, 21:00",
    ]);
  });

  it("a front-end's decline and cancel go through; an answer of the wrong shape declines", async () => {
    expect(await ask("booking", { asker: answering({ action: "cancel" }) })).toEqual({ action: "cancel" });
    expect(await ask("booking", { asker: answering({ action: "decline" }) })).toEqual({ action: "decline" });
    expect(await ask("booking", { asker: answering("yes") })).toEqual({ action: "decline" });
  });

  it("refuses without asking a 1 MB message and 10,000 fields, with a warning", async () => {
    for (const form of ["huge", "wide"]) {
      const warnings: string[] = [];
      const asker = answering({ action: "accept", content: {} });
      expect(await ask(form, { asker, warnings })).toEqual({ action: "decline" });
      expect(asker.asked).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('MCP server "form" asked for input that cannot be asked');
    }
  });

  it("an embedder's own handler wins over the Asker; what it gives is still checked", async () => {
    const asker = answering({ action: "accept", content: GOOD });
    const warnings: string[] = [];
    const embedder: McpElicit = async () => ({ action: "accept", content: { name: "Bo", people: 2 } });
    expect(await ask("booking", { asker, embedder })).toEqual({
      action: "accept",
      content: { name: "Bo", people: 2 },
    });
    expect(asker.asked).toEqual([]);
    const misfit: McpElicit = async () => ({ action: "accept", content: { name: "B", people: 2 } });
    expect(await ask("booking", { embedder: misfit, warnings })).toEqual({ action: "decline" });
    expect(warnings[0]).toContain("Your name must be at least 2 characters");
  });

  it("with nobody to ask, declines with a warning naming the server", async () => {
    const warnings: string[] = [];
    expect(await ask("booking", { warnings })).toEqual({ action: "decline" });
    expect(warnings).toEqual([
      'MCP server "form" asked for input; declined: nobody can answer here (print mode).',
    ]);
  });
});
