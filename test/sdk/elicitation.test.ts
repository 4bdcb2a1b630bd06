import { join } from "node:path";
import { type ElicitationRequest, type HookInput, type Options, query } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { FORM_SERVER } from "../mcp/mcp-fixtures.js";
import { readJsonLines } from "../support/json-lines.js";
import { collect, resultsOf, sdkWorld } from "./sdk-harness.js";

/** A world whose model calls the form server's `ask` with `form`, then says "done"; the server logs its answers. */
async function formWorld(form: string) {
  const world = await sdkWorld([
    { content: [{ type: "tool_use", name: "mcp__form__ask", input: { form } }] },
    { content: [{ type: "text", text: "done" }] },
  ]);
  const log = join(world.cwd, "..", "answers.jsonl");
  const server = { command: process.execPath, args: [FORM_SERVER], env: { FORM_LOG: log } };
  const answers = () => readJsonLines(log);
  const run = (onElicitation: (request: ElicitationRequest) => Promise<unknown>, extra: Options = {}) =>
    collect(
      query({
        prompt: "go",
        options: world.options({
          mcpServers: { form: server },
          allowedTools: ["mcp__form__ask"],
          onElicitation: onElicitation as never,
          ...extra,
        }),
      }),
    );
  return { world, answers, run };
}

const GOOD = { name: "Ada", email: "ada@example.org", people: 4, terrace: true, time: "19:00" };

describe("the Claude Agent SDK's query() driving mitsu: MCP elicitation", () => {
  it("asks the app's onElicitation with the server's name, message and form; the server gets its content", async () => {
    const t = await formWorld("booking");
    const asked: ElicitationRequest[] = [];
    const messages = await t.run(async (request) => {
      asked.push(request);
      return { action: "accept", content: GOOD };
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      serverName: "form",
      message: "Book a table at Chez Mitsu",
      mode: "form",
    });
    expect(Object.keys(asked[0]?.requestedSchema?.properties as object)).toEqual([
      "name",
      "email",
      "people",
      "terrace",
      "time",
    ]);
    expect(t.answers()).toEqual([{ form: "booking", answer: { action: "accept", content: GOOD } }]);
    expect(resultsOf(messages)[0]).toMatchObject({ subtype: "success", result: "done" });
  });

  it("content that does not fit the form is never sent: the app is asked again with the reason, then may decline", async () => {
    const t = await formWorld("booking");
    const messages: string[] = [];
    await t.run(async (request) => {
      messages.push(request.message);
      return messages.length === 1
        ? { action: "accept", content: { ...GOOD, people: 99, admin: true } }
        : { action: "decline" };
    });
    expect(messages).toHaveLength(2);
    expect(messages[1]).toBe("Book a table at Chez Mitsu\n\n(Refused: People must be at most 12)");
    expect(t.answers()).toEqual([{ form: "booking", answer: { action: "decline" } }]);
  });

  it("the app's Elicitation hook answers in the user's place; its ElicitationResult hook sees the answer", async () => {
    const t = await formWorld("booking");
    const seen: HookInput[] = [];
    let asked = 0;
    await t.run(
      async () => {
        asked++;
        return { action: "decline" };
      },
      {
        hooks: {
          Elicitation: [
            {
              matcher: "form",
              hooks: [
                async (input) => {
                  seen.push(input);
                  return {
                    hookSpecificOutput: { hookEventName: "Elicitation", action: "accept", content: GOOD },
                  };
                },
              ],
            },
          ],
          ElicitationResult: [
            {
              hooks: [
                async (input) => {
                  seen.push(input);
                  return {};
                },
              ],
            },
          ],
        },
      },
    );
    expect(asked).toBe(0);
    expect(seen.map((i) => i.hook_event_name)).toEqual(["Elicitation", "ElicitationResult"]);
    expect(seen[0]).toMatchObject({ mcp_server_name: "form", message: "Book a table at Chez Mitsu" });
    expect(seen[1]).toMatchObject({ mcp_server_name: "form", action: "accept", content: GOOD });
    expect(t.answers()).toEqual([{ form: "booking", answer: { action: "accept", content: GOOD } }]);
  });
});
