import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolContext } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createWebFetchTool } from "./web-fetch-tool.js";

let server: Server;
let base: string;
let other: string;
let hits: Record<string, number> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? "/";
    hits[path] = (hits[path] ?? 0) + 1;
    if (path === "/page") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(
        "<html><head><title>Doc</title><script>steal()</script></head><body><h1>Install</h1><p>Run <code>npm i x</code>.</p><table><tr><th>opt</th></tr><tr><td>fast</td></tr></table></body></html>",
      );
    } else if (path === "/same") {
      res.writeHead(301, { location: "/page" }).end();
    } else if (path === "/away") {
      res.writeHead(302, { location: `${other}/elsewhere` }).end();
    } else if (path === "/big") {
      res.setHeader("content-type", "text/plain");
      res.end("x".repeat(50_000));
    } else if (path === "/image") {
      res.setHeader("content-type", "image/png");
      res.end(Buffer.from([0x89, 0x50]));
    } else if (path === "/slow") {
      setTimeout(() => res.end("late"), 2000);
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    }
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  other = `http://localhost:${port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t",
  state: new ToolState(),
  agentPath: [],
});

function tool(options: { timeoutMs?: number; maxBytes?: number } = {}) {
  const prompts: string[] = [];
  const webFetch = createWebFetchTool({
    fetch,
    complete: async (prompt) => {
      prompts.push(prompt);
      return "The page says: run npm i x.";
    },
    ...options,
  });
  return { webFetch, prompts };
}

describe("WebFetch against a local HTTP server", () => {
  it("turns HTML into Markdown, asks the model call about it, and returns only the answer", async () => {
    hits = {};
    const { webFetch, prompts } = tool();
    const out = await webFetch.run({ url: `${base}/page`, prompt: "How do I install it?" }, context());
    expect(out).toBe(
      `[Fetched ${base}/page (HTTP 200, text/html, ${prompts[0]!.split("<page>\n")[1]!.split("\n</page>")[0]!.length} characters)]\n\nThe page says: run npm i x.`,
    );
    expect(prompts).toHaveLength(1);
    const prompt = prompts[0]!;
    expect(prompt).toContain("# Install");
    expect(prompt).toContain("Run `npm i x`.");
    expect(prompt).toContain("| opt |");
    expect(prompt).not.toContain("steal()");
    expect(prompt).toContain("untrusted data");
    expect(prompt.trimEnd().endsWith("say so.")).toBe(true);
    expect(prompt).toContain("How do I install it?");
    // A second fetch of the same URL within 15 minutes reuses the page.
    await webFetch.run({ url: `${base}/page`, prompt: "Again?" }, context());
    expect(hits["/page"]).toBe(1);
  });

  it("follows a redirect on the same host, and reports one to another host without following it", async () => {
    hits = {};
    const { webFetch, prompts } = tool();
    expect(await webFetch.run({ url: `${base}/same`, prompt: "?" }, context())).toContain(
      `[Fetched ${base}/page`,
    );
    const away = await webFetch.run({ url: `${base}/away`, prompt: "?" }, context());
    expect(away).toBe(
      `${base}/away redirected (HTTP 302) to another host: ${other}/elsewhere\nIt was not followed. To read it, call WebFetch again with url "${other}/elsewhere".`,
    );
    expect(hits["/elsewhere"]).toBeUndefined();
    expect(prompts).toHaveLength(1);
  });

  it("caps the bytes read and the time taken", async () => {
    const { webFetch, prompts } = tool({ maxBytes: 1000, timeoutMs: 300 });
    const out = await webFetch.run({ url: `${base}/big`, prompt: "?" }, context());
    expect(out).toContain("only the first 1000 bytes of the page were read");
    expect(prompts[0]).toContain(`${"x".repeat(1000)}\n</page>`);
    await expect(webFetch.run({ url: `${base}/slow`, prompt: "?" }, context())).rejects.toThrow(
      /timed out after 0 s|timed out/,
    );
  });

  it("refuses what it cannot read, with the reason", async () => {
    const { webFetch } = tool();
    await expect(webFetch.run({ url: `${base}/image`, prompt: "?" }, context())).rejects.toThrow(
      /is image\/png, not a text or HTML page/,
    );
    await expect(webFetch.run({ url: `${base}/nope`, prompt: "?" }, context())).rejects.toThrow(
      /answered HTTP 404 Not Found: no such page/,
    );
    await expect(webFetch.check!({ url: "file:///etc/passwd", prompt: "?" }, context())).rejects.toThrow(
      /Only http and https/,
    );
    await expect(webFetch.check!({ url: "http://u:p@example.com/", prompt: "?" }, context())).rejects.toThrow(
      /user name or password/,
    );
  });
});
