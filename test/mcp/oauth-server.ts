import { randomUUID } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import { InvalidScopeError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import express from "express";

/**
 * A local authorization server and a protected MCP server in one, built from the SDK's server-side auth module
 * (`mcpAuthRouter`: metadata, dynamic registration, authorize, token with PKCE; `requireBearerAuth` in front of
 * `/mcp`). The user "logs in" at once: /authorize redirects with a code. Tokens live `tokenSeconds`; refresh
 * tokens work. `counts` says how often each step ran, so tests can tell a refresh from a new login. Calling the
 * tool `admin` needs the scope `admin`: without it the call is answered 403 insufficient_scope (a step-up).
 */
export async function startOAuthMcpServer(options: { tokenSeconds?: number } = {}) {
  const counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0 };
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { clientId: string; challenge: string; scopes: string[] }>();
  const tokens = new Map<string, AuthInfo>();
  const refreshTokens = new Map<string, { clientId: string; scopes: string[] }>();
  const lifetime = options.tokenSeconds ?? 3600;
  const issue = (clientId: string, scopes: string[]) => {
    const access = randomUUID();
    const refresh = randomUUID();
    tokens.set(access, {
      token: access,
      clientId,
      scopes,
      expiresAt: Math.floor(Date.now() / 1000) + lifetime,
    });
    refreshTokens.set(refresh, { clientId, scopes });
    return { access_token: access, token_type: "bearer", expires_in: lifetime, refresh_token: refresh };
  };
  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (client) => {
        counts.registrations++;
        const full = client as OAuthClientInformationFull;
        clients.set(full.client_id, full);
        return full;
      },
    },
    async authorize(client, params, res) {
      counts.authorizations++;
      const code = randomUUID();
      codes.set(code, {
        clientId: client.client_id,
        challenge: params.codeChallenge,
        scopes: params.scopes ?? [],
      });
      const target = new URL(params.redirectUri);
      target.searchParams.set("code", code);
      if (params.state !== undefined) target.searchParams.set("state", params.state);
      res.redirect(target.toString());
    },
    challengeForAuthorizationCode: async (_client, code) => codes.get(code)!.challenge,
    async exchangeAuthorizationCode(client, code) {
      counts.codeExchanges++;
      const granted = codes.get(code);
      if (granted?.clientId !== client.client_id) throw new Error("unknown code");
      codes.delete(code);
      return issue(client.client_id, granted.scopes);
    },
    async exchangeRefreshToken(client, refreshToken, scopes) {
      counts.refreshes++;
      const granted = refreshTokens.get(refreshToken);
      if (granted?.clientId !== client.client_id) throw new Error("unknown refresh token");
      // A refresh cannot widen what was granted (RFC 6749 §6): a wider scope needs a new login.
      if (scopes?.some((scope) => !granted.scopes.includes(scope)))
        throw new InvalidScopeError("wider than granted");
      refreshTokens.delete(refreshToken);
      return issue(client.client_id, granted.scopes);
    },
    async verifyAccessToken(token) {
      const info = tokens.get(token);
      if (!info || (info.expiresAt ?? 0) < Date.now() / 1000)
        throw new InvalidTokenError("invalid or expired token");
      return info;
    },
  };

  const app = express();
  const http: HttpServer = await new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  app.post(
    "/mcp",
    requireBearerAuth({
      verifier: provider,
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
    }),
    express.json(),
    async (req, res) => {
      const body = req.body as { method?: string; params?: { name?: string } };
      const scopes = (req as unknown as { auth?: AuthInfo }).auth?.scopes ?? [];
      if (body.method === "tools/call" && body.params?.name === "admin" && !scopes.includes("admin")) {
        const metadata = getOAuthProtectedResourceMetadataUrl(mcpUrl);
        res
          .status(403)
          .set(
            "WWW-Authenticate",
            `Bearer error="insufficient_scope", scope="admin", resource_metadata="${metadata}"`,
          )
          .json({ error: "insufficient_scope" });
        return;
      }
      const server = new Server({ name: "secure", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          { name: "whoami", description: "Says which client is calling.", inputSchema: { type: "object" } },
          { name: "admin", description: "Needs the admin scope.", inputSchema: { type: "object" } },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => ({
        content: [
          {
            type: "text",
            text:
              request.params.name === "admin"
                ? `admin with scopes ${extra.authInfo?.scopes.join(" ")}`
                : `client ${extra.authInfo?.clientId}`,
          },
        ],
      }));
      // Stateless: one server per request, no session id.
      const transport = new StreamableHTTPServerTransport(
        {} as ConstructorParameters<typeof StreamableHTTPServerTransport>[0],
      );
      res.on("close", () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  return {
    url: mcpUrl.toString(),
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** What a browser does with the authorization URL here: follow the redirect to mitsu's loopback listener. */
export async function browser(url: string): Promise<void> {
  const answer = await fetch(url, { redirect: "manual" });
  const location = answer.headers.get("location");
  if (!location) throw new Error(`no redirect from ${url}: ${answer.status} ${await answer.text()}`);
  await fetch(location);
}
