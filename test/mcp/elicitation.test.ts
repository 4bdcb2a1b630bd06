import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ToolState } from "../../src/loop/tool-state.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/connect-mcp-servers.js";
import { MAX_OPEN_ELICITATIONS } from "../../src/mcp/mcp-connection.js";
import type { McpElicitationRequest } from "../../src/mcp/mcp-elicitation.js";
import { nodeServer } from "./mcp-fixtures.js";

const SERVER = join(import.meta.dirname, "elicit-server.mjs");
let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
});

async function book(
  elicit?: (request: McpElicitationRequest) => Promise<unknown>,
  name = "mcp__elicit__book",
): Promise<string> {
  servers = await connectMcpServers(
    { elicit: nodeServer(SERVER) },
    { logDir: false, env: { PATH: process.env.PATH }, ...(elicit ? { elicit: elicit as never } : {}) },
  );
  const tool = servers.tools.find((t) => t.name === name)!;
  const result = await tool.run(
    {} as never,
    {
      signal: new AbortController().signal,
      toolUseId: "t",
      state: new ToolState(),
    } as never,
  );
  return JSON.stringify(result);
}

describe("MCP elicitation (a server asks the user mid-call)", () => {
  it("asks whoever answers for the client, and fills the schema's defaults the answer left out", async () => {
    const asked: McpElicitationRequest[] = [];
    const text = await book(async (request) => {
      asked.push(request);
      return { action: "accept", content: { people: 4 } };
    });
    expect(asked.map((r) => [r.server, r.message])).toEqual([["elicit", "How many people?"]]);
    expect(Object.keys(asked[0]!.schema.properties as object)).toEqual(["people", "terrace"]);
    expect(text).toContain('\\"action\\":\\"accept\\"');
    expect(text).toContain('\\"people\\":4');
    expect(text).toContain('\\"terrace\\":false');
  });

  it("declines when nobody can answer (print mode)", async () => {
    expect(await book()).toContain('\\"action\\":\\"decline\\"');
  });

  it("a flood (100 questions at once) asks at most MAX_OPEN_ELICITATIONS at a time; the rest are declined unasked", async () => {
    let open = 0;
    let most = 0;
    let asked = 0;
    const text = await book(async () => {
      asked++;
      most = Math.max(most, ++open);
      // Each is held a while, as a person answering would: the flood arrives meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 300));
      open--;
      return { action: "accept", content: { ok: true } };
    }, "mcp__elicit__flood");
    expect(most).toBeLessThanOrEqual(MAX_OPEN_ELICITATIONS);
    expect(asked).toBeLessThan(50);
    const counts = JSON.parse(JSON.parse(text).content) as Record<string, number>;
    expect(counts.accept).toBe(asked);
    expect(counts.decline).toBe(100 - asked);
  });
});
