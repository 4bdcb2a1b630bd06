import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { McpOAuthProvider } from "../mcp-connection.js";
import { OAuthStore, type StoredOAuth } from "./oauth-store.js";
import { freeLoopbackPort, RedirectListener } from "./redirect-listener.js";

export interface McpOAuthOptions {
  /** `~/.mitsu/mcp-oauth` is under it. Default `os.homedir()`. */
  home?: string;
  /**
   * True where a person can log in (interactive mode, `mitsu mcp login`): the browser is opened at the authorization
   * page and the redirect is awaited. False (print mode): a server without a valid login is `needs-auth`.
   */
  interactive: boolean;
  /** Opens the authorization page. Default: `browser`, else the system's opener (`open`, `xdg-open`, `start`). */
  openBrowser?: (url: string) => void | Promise<void>;
  /** A program to open the page with (the `BROWSER` variable), given the URL as its one argument. */
  browser?: string;
  /** Tells the user what is happening (the URL to open by hand if no browser comes up). */
  onMessage?: (message: string) => void;
  /** How long to wait for the user to log in. Default 5 minutes. */
  loginTimeoutMs?: number;
}

/**
 * The OAuth client for remote MCP servers, on the SDK's client auth flow (discovery, dynamic client registration,
 * PKCE, token refresh): this supplies the storage — `~/.mitsu/mcp-oauth/*.json`, 0600 — and the user's side — a
 * loopback redirect listener and the browser. Registration is kept with the redirect port it used, so the next
 * login reuses both.
 */
export function createMcpOAuth(options: McpOAuthOptions): (server: string, url: string) => McpOAuthProvider {
  const store = new OAuthStore(join(options.home ?? homedir(), ".mitsu", "mcp-oauth"));
  const say = options.onMessage ?? (() => {});
  const open = options.openBrowser ?? ((url: string) => openWithSystem(url, options.browser));
  return (server, url) => {
    let stored: StoredOAuth | undefined;
    let listener: RedirectListener | undefined;
    let requested = false;
    let pendingUrl: URL | undefined;
    let state: string | undefined;
    let port: number | undefined;
    const requiredScopes = new Set<string>();
    const load = async () => {
      stored ??= await store.read(server, url);
      return stored;
    };
    const save = async (change: Partial<StoredOAuth>) => {
      stored = { ...(await load()), ...change };
      await store.write(server, url, stored);
    };
    const redirectPort = async () => {
      if (port === undefined) port = (await load()).redirectPort ?? (await freeLoopbackPort());
      return port;
    };

    const provider: McpOAuthProvider = {
      get redirectUrl() {
        return `http://127.0.0.1:${port ?? 0}/callback`;
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: "mitsu",
          redirect_uris: [provider.redirectUrl as string],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
          ...(requiredScopes.size > 0 ? { scope: [...requiredScopes].join(" ") } : {}),
        };
      },
      requireScope(scope) {
        for (const name of scope.split(/\s+/)) if (name) requiredScopes.add(name);
      },
      get authorizationRequested() {
        return requested;
      },
      state() {
        state = randomBytes(16).toString("hex");
        return state;
      },
      async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
        const data = await load();
        await redirectPort();
        // Registered for another redirect port: register again rather than send a redirect URI it does not know.
        if (data.redirectPort !== undefined && data.redirectPort !== port) return undefined;
        return data.client;
      },
      async saveClientInformation(client) {
        await save({ client, redirectPort: await redirectPort() });
      },
      async tokens(): Promise<OAuthTokens | undefined> {
        return (await load()).tokens;
      },
      async saveTokens(tokens) {
        await save({ tokens, savedAt: Date.now() });
      },
      async redirectToAuthorization(authorizationUrl) {
        requested = true;
        pendingUrl = authorizationUrl;
        if (!options.interactive) return;
        listener = new RedirectListener(await redirectPort());
        listener.expectedState = state;
        await listener.listen();
        say(
          `Opening the browser to log in to the MCP server "${server}". If it does not open, visit:\n${authorizationUrl.toString()}`,
        );
        await Promise.resolve(open(authorizationUrl.toString())).catch(() => {});
      },
      async saveCodeVerifier(codeVerifier) {
        await save({ codeVerifier });
      },
      async codeVerifier() {
        const verifier = (await load()).codeVerifier;
        if (!verifier) throw new Error("no PKCE code verifier was saved for this login");
        return verifier;
      },
      async saveDiscoveryState(discovery: OAuthDiscoveryState) {
        await save({ discovery });
      },
      async discoveryState() {
        return (await load()).discovery;
      },
      async invalidateCredentials(scope) {
        const data = { ...(await load()) };
        if (scope === "all" || scope === "client") {
          delete data.client;
          delete data.redirectPort;
        }
        if (scope === "all" || scope === "tokens") {
          delete data.tokens;
          delete data.savedAt;
        }
        if (scope === "all" || scope === "verifier") delete data.codeVerifier;
        if (scope === "all" || scope === "discovery") delete data.discovery;
        stored = data;
        await store.write(server, url, data);
      },
      async waitForAuthorizationCode(signal) {
        if (!options.interactive || !listener) {
          throw new Error(
            `the server asks for a login (OAuth), which needs a person: run \`mitsu mcp login ${server}\``,
          );
        }
        const timeout = options.loginTimeoutMs ?? 5 * 60_000;
        const timer = new Promise<never>((_, reject) => {
          const t = setTimeout(
            () => reject(new Error(`no login within ${Math.round(timeout / 1000)} s`)),
            timeout,
          );
          t.unref();
        });
        // The login has its own deadline: MCP_TIMEOUT is for machines, not for a person at a browser.
        void signal;
        try {
          return await Promise.race([listener.code, timer]);
        } finally {
          // This login is over, whatever its end; a later one (a step-up) starts afresh.
          requested = false;
          await listener.close();
          listener = undefined;
        }
      },
      async dispose() {
        await listener?.close();
        listener = undefined;
      },
    };
    void pendingUrl;
    return provider;
  };
}

/** Forgets a server's login (tokens and registration). True when there was one. */
export async function forgetMcpLogin(
  server: string,
  url: string,
  home: string = homedir(),
): Promise<boolean> {
  return new OAuthStore(join(home, ".mitsu", "mcp-oauth")).remove(server, url);
}

function openWithSystem(url: string, browser: string | undefined): void {
  const system = process.platform === "darwin" ? "open" : process.platform === "win32" ? "cmd" : "xdg-open";
  const command = browser || system;
  const args = !browser && process.platform === "win32" ? ["/c", "start", "", url] : [url];
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", () => {});
  child.unref();
}
