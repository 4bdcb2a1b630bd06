import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LoggedRequest, Simulator } from "../../src/simulator/index.js";
import { startSimulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

let server: Server;
let site: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/docs") {
      res.setHeader("content-type", "text/html");
      res.end("<h1>Config</h1><p>The <code>retries</code> option defaults to 3.</p>");
    } else res.writeHead(404).end();
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

function toolResult(request: LoggedRequest | undefined, id: string) {
  const blocks = (request?.body.messages ?? []).flatMap((m: { content: unknown }) =>
    Array.isArray(m.content) ? m.content : [],
  );
  return blocks.find((b: { tool_use_id?: string }) => b.tool_use_id === id);
}

describe("WebFetch through mitsu -p", () => {
  it("fetches the page, a small model answers about it, and only the answer enters the conversation", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_f",
              name: "WebFetch",
              input: { url: `${site}/docs`, prompt: "Default retries?" },
            },
          ],
        },
        (request) => ({
          content: [
            {
              type: "text",
              text: request.body.messages[0].content[0].text.includes("defaults to 3")
                ? "It is 3."
                : "Unknown.",
            },
          ],
        }),
        { content: [{ type: "text", text: "Retries default to 3." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const out = await runMitsu(
      ["-p", "check the docs", "--allowedTools", "WebFetch(domain:127.0.0.1)", "--no-session-log"],
      {
        cwd,
        home,
        env: s.env,
      },
    );
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`● WebFetch ${site}/docs`);
    const side = sim.requests[1]!.body;
    expect(side.model).toBe("claude-haiku-4-5");
    expect(side.tools).toBeUndefined();
    expect(side.messages[0].content[0].text).toContain("# Config");
    const result = toolResult(sim.requests[2], "toolu_f");
    expect(result.content).toBe(
      `[Fetched ${site}/docs (HTTP 200, text/html, ${"# Config\n\nThe `retries` option defaults to 3.".length} characters)]\n\nIt is 3.`,
    );
    expect(JSON.stringify(sim.requests[2]!.body.messages)).not.toContain("# Config");
  });

  it("without a rule for the domain, print mode denies it and names the rule to add", async () => {
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_f",
              name: "WebFetch",
              input: { url: `${site}/docs`, prompt: "?" },
            },
          ],
        },
        { content: [{ type: "text", text: "Denied." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    await runMitsu(["-p", "check", "--no-session-log"], { cwd, home, env: s.env });
    expect(toolResult(sim.requests[1], "toolu_f").content).toContain('"WebFetch(domain:127.0.0.1)"');
    expect(sim.requests).toHaveLength(2);
  });
});

describe("WebSearch through mitsu -p", () => {
  const searchTurn = {
    content: [
      {
        type: "web_search" as const,
        query: "mitsu 1.0 release",
        results: [{ url: "https://example.org/news", title: "mitsu 1.0 is out" }],
      },
      {
        type: "text" as const,
        text: "mitsu 1.0 was released today.",
        citations: [{ url: "https://example.org/news", title: "mitsu 1.0 is out" }],
      },
    ],
  };

  it.each([
    ["anthropic", "anthropic:claude-sonnet-5-5"],
    ["openai-responses", "openai-responses:gpt-5"],
  ])(
    "%s: the provider's search runs server-side and its answer and sources come back",
    async (_name, model) => {
      sim = await startSimulator({
        script: [
          {
            content: [
              { type: "tool_use", id: "call_s", name: "WebSearch", input: { query: "mitsu release" } },
            ],
          },
          searchTurn,
          { content: [{ type: "text", text: "It was released today [1]." }] },
        ],
      });
      const env = {
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: sim.url,
        OPENAI_API_KEY: "k",
        OPENAI_BASE_URL: `${sim.url}/v1`,
      };
      const { cwd, home } = tempWorkspace();
      const out = await runMitsu(
        ["-p", "news?", "--model", model, "--allowedTools", "WebSearch", "--no-session-log"],
        {
          cwd,
          home,
          env,
        },
      );
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout).toContain("● WebSearch mitsu release");
      expect(JSON.stringify(sim.requests[1]!.body.tools)).toContain("web_search");
      const last = sim.requests[2]!;
      const text = JSON.stringify(last.body);
      expect(text).toContain("mitsu 1.0 was released today.");
      expect(text).toContain("[mitsu 1.0 is out](https://example.org/news)");
      expect(text).toContain('Searched for: \\"mitsu 1.0 release\\"');
    },
  );

  it("is absent where the provider has no server-side search (OpenAI Chat)", async () => {
    sim = await startSimulator({ script: [{ content: [{ type: "text", text: "ok" }] }] });
    const { cwd, home } = tempWorkspace();
    await runMitsu(["-p", "hi", "--model", "openai:gpt-5", "--no-session-log"], {
      cwd,
      home,
      env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${sim.url}/v1` },
    });
    const names = sim.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(names).toContain("WebFetch");
    expect(names).not.toContain("WebSearch");
  });
});
