import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolContext } from "../../src/loop/tool.js";
import { ToolState } from "../../src/loop/tool-state.js";
import { connectMcpServers, type McpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createMcpOAuth } from "../../src/mcp/oauth/create-mcp-oauth.js";
import { tempDir } from "./mcp-fixtures.js";
import { browser, startOAuthMcpServer } from "./oauth-server.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function server(options: { tokenSeconds?: number } = {}) {
  const s = await startOAuthMcpServer(options);
  cleanup.push(s.close);
  return s;
}

async function connect(
  url: string,
  oauth: ReturnType<typeof createMcpOAuth>,
  home: string,
): Promise<McpServers> {
  const servers = await connectMcpServers(
    { secure: { type: "http", url } },
    { oauth, home, logDir: false, limits: { timeoutMs: 10_000 } },
  );
  cleanup.push(() => servers.close());
  return servers;
}

const ctx: ToolContext = {
  signal: new AbortController().signal,
  toolUseId: "t",
  state: new ToolState(),
  agentPath: [],
};

describe("OAuth for remote MCP servers (against the SDK's own authorization server)", () => {
  it("registers, sends the user to log in (PKCE), takes the code at the loopback redirect, and calls the tool", async () => {
    const s = await server();
    const home = tempDir();
    const opened: string[] = [];
    const messages: string[] = [];
    const oauth = createMcpOAuth({
      home,
      interactive: true,
      openBrowser: async (url) => {
        opened.push(url);
        await browser(url);
      },
      onMessage: (m) => messages.push(m),
    });
    const servers = await connect(s.url, oauth, home);
    expect(servers.status[0]).toMatchObject({ state: "connected", tools: 2 });
    expect(s.counts).toMatchObject({ registrations: 1, authorizations: 1, codeExchanges: 1 });
    const authorize = new URL(opened[0]!);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(messages[0]).toContain('Opening the browser to log in to the MCP server "secure"');
    const whoami = servers.tools.find((t) => t.name === "mcp__secure__whoami")!;
    const result = await whoami.run({} as never, ctx);
    expect(result).toMatchObject({ content: expect.stringMatching(/^client /) });

    // Stored for the next run, readable by the user only.
    const dir = join(home, ".mitsu", "mcp-oauth");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
  });

  it("the next run uses the stored tokens: no browser, no new registration", async () => {
    const s = await server();
    const home = tempDir();
    await connect(s.url, createMcpOAuth({ home, interactive: true, openBrowser: browser }), home);
    const noBrowser = createMcpOAuth({
      home,
      interactive: false,
      openBrowser: () => {
        throw new Error("must not open");
      },
    });
    const again = await connect(s.url, noBrowser, home);
    expect(again.status[0]!.state).toBe("connected");
    expect(s.counts).toMatchObject({ registrations: 1, authorizations: 1 });
  });

  it("an expired access token is refreshed with the refresh token, without a new login", async () => {
    const s = await server({ tokenSeconds: 1 });
    const home = tempDir();
    await connect(s.url, createMcpOAuth({ home, interactive: true, openBrowser: browser }), home);
    await new Promise((r) => setTimeout(r, 2100));
    const again = await connect(s.url, createMcpOAuth({ home, interactive: false }), home);
    expect(again.status[0]).toMatchObject({ state: "connected" });
    expect(s.counts.authorizations).toBe(1);
    expect(s.counts.refreshes).toBeGreaterThanOrEqual(1);
  });

  it("a call that needs a wider scope (403 insufficient_scope) gets a second login, then goes through", async () => {
    const s = await server();
    const home = tempDir();
    const opened: string[] = [];
    const oauth = createMcpOAuth({
      home,
      interactive: true,
      openBrowser: async (url) => {
        opened.push(url);
        await browser(url);
      },
    });
    const servers = await connect(s.url, oauth, home);
    const admin = servers.tools.find((t) => t.name === "mcp__secure__admin")!;
    expect(await admin.run({} as never, ctx)).toEqual({ content: "admin with scopes admin", isError: false });
    expect(opened).toHaveLength(2);
    expect(new URL(opened[1]!).searchParams.get("scope")).toBe("admin");
  });

  it("where nobody can log in (print mode), the server is needs-auth with how to log in", async () => {
    const s = await server();
    const home = tempDir();
    const warnings: string[] = [];
    const servers = await connectMcpServers(
      { secure: { type: "http", url: s.url } },
      {
        oauth: createMcpOAuth({ home, interactive: false }),
        home,
        logDir: false,
        onWarning: (m) => warnings.push(m),
      },
    );
    cleanup.push(() => servers.close());
    expect(servers.status[0]).toMatchObject({
      state: "needs-auth",
      error: expect.stringContaining("run `mitsu mcp login secure`"),
    });
    expect(warnings[0]).toContain('MCP server "secure" needs a login');
  });
});
