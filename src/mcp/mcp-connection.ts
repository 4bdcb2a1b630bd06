import { appendFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
  type Prompt,
  PromptListChangedNotificationSchema,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool as SdkTool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { expandServerConfig } from "./expand-server-config.js";
import type { McpCallResult } from "./map-call-result.js";
import type { McpElicit } from "./mcp-elicitation.js";
import type { McpServerConfig, McpServerEntry, McpTransportType } from "./mcp-server-config.js";
import { mcpServerEnv } from "./mcp-server-env.js";
import { StdioProcessTransport } from "./stdio-process-transport.js";

/** How many of one server's elicitations may wait for an answer at once; more are declined without asking. */
export const MAX_OPEN_ELICITATIONS = 8;

/** How a server stands. `needs-auth`: it asks for an OAuth login that has not been given. */
export type McpConnectionState = "connecting" | "connected" | "failed" | "needs-auth" | "closed";

/** An OAuth client for one server: the SDK's provider, and a way to wait for the user's login. */
export interface McpOAuthProvider extends OAuthClientProvider {
  /**
   * Called after the SDK asked to send the user to the authorization page (`redirectToAuthorization`): resolves
   * with the authorization code the redirect brought back, or rejects when nobody can log in (print mode) or it
   * takes too long.
   */
  waitForAuthorizationCode(signal: AbortSignal): Promise<string>;
  /** True once the SDK has asked for the user's login in this connection attempt. */
  readonly authorizationRequested: boolean;
  /** Releases the redirect listener, if one is open. */
  dispose?(): Promise<void>;
  /**
   * A scope the server said a request needs (403 insufficient_scope): asked for at the next login. The SDK's own
   * step-up tries the refresh token first, which cannot widen a scope, and then forgets the scope.
   */
  requireScope?(scope: string): void;
}

export interface McpConnectionOptions {
  entry: McpServerEntry;
  /** For `${VAR}` expansion, and the stdio server's minimal environment. */
  env: Record<string, string | undefined>;
  /** The stdio servers' working folder (unless the entry says one), relative `cwd`s resolve from it. */
  cwd: string;
  /** Where each server's stderr and log messages are appended (`<name>.log`). */
  logDir?: string;
  /** For `initialize` and the first lists; past it the server is stopped and reported. */
  timeoutMs: number;
  clientInfo: { name: string; version: string };
  /** OAuth for remote servers that ask for it; absent, such a server is `needs-auth`. */
  oauth?: (server: string, url: string) => McpOAuthProvider;
  /** For HTTP and SSE (tests inject one); default the global fetch. */
  fetch?: FetchLike;
  /** A server said its tools changed and the new list has been read (see `pendingTools`). */
  onToolsChanged?: (connection: McpConnection) => void;
  /** Who answers the server's elicitations (form mode); absent, each is declined. */
  elicit?: McpElicit;
}

export interface McpCallOptions {
  signal: AbortSignal;
  timeoutMs: number;
  onProgress?: (progress: Progress) => void;
}

/**
 * One server: its client, its transport, and what it offers. `open` never throws: a server that cannot start,
 * answer `initialize` or list its tools in time ends `failed` with `error` saying why (and, for a stdio server,
 * the end of its log), and its process is stopped.
 */
export class McpConnection {
  readonly name: string;
  readonly transport: McpTransportType;
  state: McpConnectionState = "connecting";
  error: string | undefined;
  /** The tools as last listed and applied; `pendingTools` holds a newer list until `applyPendingTools`. */
  tools: SdkTool[] = [];
  pendingTools: SdkTool[] | undefined;
  prompts: Prompt[] = [];
  hasResources = false;
  /** How long `open` took. */
  durationMs = 0;
  readonly logFile: string | undefined;

  private client: Client | undefined;
  private sdkTransport: Transport | undefined;
  private config: McpServerConfig | undefined;
  private dropped = false;
  private oauth: McpOAuthProvider | undefined;
  private closing = false;
  /** The signals of the tool calls in progress; an elicitation comes only in the middle of one. */
  private readonly calls = new Set<AbortSignal>();
  /** Aborted when no call is in progress any more: the open elicitations are withdrawn. */
  private callsEnded: AbortController[] = [];

  private constructor(private readonly options: McpConnectionOptions) {
    this.name = options.entry.name;
    this.transport = options.entry.config.type;
    this.logFile = options.logDir ? join(options.logDir, `${safeFileName(this.name)}.log`) : undefined;
  }

  static async open(options: McpConnectionOptions): Promise<McpConnection> {
    const connection = new McpConnection(options);
    const started = performance.now();
    await connection.connect();
    connection.durationMs = Math.round(performance.now() - started);
    return connection;
  }

  /** The server's own description of how to use it (`instructions` of `initialize`), if any. */
  get instructions(): string | undefined {
    return this.client?.getInstructions();
  }

  /** Makes the newest tool list the current one; true when there was one. */
  applyPendingTools(): boolean {
    if (!this.pendingTools) return false;
    this.tools = this.pendingTools;
    this.pendingTools = undefined;
    return true;
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpCallResult> {
    const call = async () =>
      (await this.live().callTool({ name, arguments: args }, CallToolResultSchema, {
        signal: options.signal,
        timeout: options.timeoutMs,
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      })) as McpCallResult;
    this.calls.add(options.signal);
    try {
      return await this.withReconnect(call);
    } finally {
      this.calls.delete(options.signal);
      if (this.calls.size === 0) for (const end of this.callsEnded.splice(0)) end.abort();
    }
  }

  async getPrompt(name: string, args: Record<string, string>, signal?: AbortSignal) {
    return this.withReconnect(() =>
      this.live().getPrompt({ name, arguments: args }, signal ? { signal } : {}),
    );
  }

  /** Every resource and resource template of the server (all pages). */
  async listResources(
    signal?: AbortSignal,
  ): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    return this.withReconnect(async () => {
      const client = this.live();
      const resources = await allPages((cursor) =>
        client
          .listResources(cursor ? { cursor } : {}, signal ? { signal } : {})
          .then((r) => ({ items: r.resources, next: r.nextCursor })),
      );
      const templates = await allPages((cursor) =>
        client
          .listResourceTemplates(cursor ? { cursor } : {}, signal ? { signal } : {})
          .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor })),
      ).catch(() => [] as ResourceTemplate[]);
      return { resources, templates };
    });
  }

  async readResource(uri: string, signal?: AbortSignal): Promise<ReadResourceResult> {
    return this.withReconnect(() => this.live().readResource({ uri }, signal ? { signal } : {}));
  }

  async close(): Promise<void> {
    this.closing = true;
    const client = this.client;
    this.client = undefined;
    if (this.state !== "failed" && this.state !== "needs-auth") this.state = "closed";
    await closeQuietly(client, this.sdkTransport);
    this.sdkTransport = undefined;
    await this.oauth?.dispose?.();
  }

  /** The client, or a clear error when the server is not there. */
  private live(): Client {
    if (this.client && this.state === "connected") return this.client;
    const why = this.error ? `: ${this.error}` : "";
    throw new Error(`The MCP server "${this.name}" is not connected (${this.state}${why}).`);
  }

  /**
   * Runs a request; a remote server that dropped (connection refused, session gone) is reconnected once and the
   * request sent again — safe, since the server never received it. A stdio server that died stays down.
   */
  private async withReconnect<T>(request: () => Promise<T>): Promise<T> {
    if (this.dropped && this.transport !== "stdio") await this.reconnect();
    try {
      return await request();
    } catch (error) {
      if (this.closing || this.transport === "stdio") throw error;
      // A server that asks for more (403 insufficient_scope) or a new login mid-session: the SDK has sent the user
      // to the authorization page; with the code, the request goes again (the server refused it, so it never ran).
      const oauth = this.oauth;
      if (oauth?.authorizationRequested && isUnauthorized(error)) {
        await this.finishLogin(oauth);
        return request();
      }
      if (oauth && isScopeRefused(error)) {
        // The SDK tried its refresh token, which cannot widen a scope: without tokens the next attempt sends the
        // user to log in for the scope the server named.
        await oauth.invalidateCredentials?.("tokens");
        try {
          return await request();
        } catch (again) {
          if (!(oauth.authorizationRequested && isUnauthorized(again))) throw again;
          await this.finishLogin(oauth);
          return request();
        }
      }
      if (!isDropped(error)) throw error;
      this.dropped = true;
      await this.reconnect();
      return request();
    }
  }

  /** Waits for the login the SDK asked for (mid-session) and hands its code to the transport. */
  private async finishLogin(oauth: McpOAuthProvider): Promise<void> {
    const code = await oauth.waitForAuthorizationCode(new AbortController().signal).catch((why: unknown) => {
      throw new Error(`The MCP server "${this.name}" asks for a new login: ${errorText(why)}`);
    });
    await (this.sdkTransport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(code);
  }

  private async reconnect(): Promise<void> {
    this.dropped = false;
    const previous = this.tools;
    await closeQuietly(this.client, this.sdkTransport);
    this.client = undefined;
    this.state = "connecting";
    this.error = undefined;
    await this.connect();
    if ((this.state as McpConnectionState) !== "connected") {
      throw new Error(`The MCP server "${this.name}" dropped and could not be reconnected: ${this.error}`);
    }
    // The tools in use stay until the next user turn; a different list after reconnecting is a change like any other.
    const fresh = this.tools;
    this.tools = previous;
    if (JSON.stringify(fresh) !== JSON.stringify(previous)) {
      this.pendingTools = fresh;
      this.options.onToolsChanged?.(this);
    }
  }

  private async connect(): Promise<void> {
    const { entry } = this.options;
    const deadline = new Deadline(this.options.timeoutMs);
    try {
      this.config ??= expandServerConfig(entry.name, entry.config, this.options.env);
      await this.attempt(this.config, deadline);
      this.state = "connected";
    } catch (error) {
      this.state = error instanceof NeedsAuthError ? "needs-auth" : "failed";
      this.error = this.describeFailure(error, deadline.signal);
      await closeQuietly(this.client, this.sdkTransport);
      this.client = undefined;
      this.sdkTransport = undefined;
    } finally {
      deadline.clear();
    }
  }

  private async attempt(config: McpServerConfig, deadline: Deadline): Promise<void> {
    let oauth: McpOAuthProvider | undefined;
    if (config.type !== "stdio" && this.options.oauth) oauth = this.options.oauth(this.name, config.url);
    // Kept for the session: the transport asks it for tokens on every request, and for a new login if need be.
    this.oauth = oauth;
    try {
      // A login, and at most one more when the server then asks for a wider scope (a step-up, 403
      // insufficient_scope) while it is being listed.
      for (let logins = 0; ; logins++) {
        const transport = this.createTransport(config, oauth);
        this.sdkTransport = transport;
        const client = this.createClient();
        this.client = client;
        try {
          await abortable(
            client.connect(transport, { signal: deadline.signal, timeout: this.options.timeoutMs }),
            deadline.signal,
          );
          await this.listEverything(deadline.signal);
          return;
        } catch (error) {
          if (!oauth && isUnauthorized(error)) {
            throw new NeedsAuthError(
              `the server asks for a login (${errorText(error)}), and mitsu was given no way to log in`,
            );
          }
          if (
            !(error instanceof UnauthorizedError) &&
            !(oauth?.authorizationRequested && isUnauthorized(error))
          )
            throw error;
          if (!oauth || logins >= 2) throw new NeedsAuthError(errorText(error));
          // The SDK sent the user to log in: wait for the redirect's code (a person's time, not MCP_TIMEOUT), hand
          // it over, and connect again within a fresh MCP_TIMEOUT.
          const code = await oauth.waitForAuthorizationCode(deadline.signal).catch((why: unknown) => {
            throw new NeedsAuthError(errorText(why));
          });
          await (transport as StreamableHTTPClientTransport | SSEClientTransport).finishAuth(code);
          await closeQuietly(client, transport);
          deadline.restart();
        }
      }
    } finally {
      await oauth?.dispose?.();
    }
  }

  private async listEverything(signal: AbortSignal): Promise<void> {
    const client = this.client!;
    const capabilities = client.getServerCapabilities() ?? {};
    const options = { signal, timeout: this.options.timeoutMs };
    this.tools = capabilities.tools ? await this.listTools(client, options) : [];
    this.prompts = capabilities.prompts
      ? await allPages((cursor) =>
          client
            .listPrompts(cursor ? { cursor } : {}, options)
            .then((r) => ({ items: r.prompts, next: r.nextCursor })),
        ).catch(() => [])
      : [];
    this.hasResources = capabilities.resources !== undefined;
  }

  private listTools(client: Client, options: { signal?: AbortSignal; timeout: number }): Promise<SdkTool[]> {
    return allPages((cursor) =>
      client
        .listTools(cursor ? { cursor } : {}, options)
        .then((r) => ({ items: r.tools, next: r.nextCursor })),
    );
  }

  private createClient(): Client {
    // Elicitation in form mode, the schema's defaults filled in where the user left a field out (SEP-1034).
    const client = new Client(this.options.clientInfo, {
      capabilities: { elicitation: { form: { applyDefaults: true } } },
    });
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      const params = request.params as { message: string; requestedSchema?: Record<string, unknown> };
      // A server asks in the middle of one of its tool calls: with none in progress (it was cancelled, it ended),
      // nobody is asked; the question is withdrawn when its calls are cancelled or end.
      if (!this.options.elicit || this.calls.size === 0) return { action: "decline" as const };
      // A flood (a server asking 100 questions at once) would queue a dialog per question for the user to get
      // through: past a few open ones, each further question is declined at once.
      if (this.callsEnded.length >= MAX_OPEN_ELICITATIONS) {
        this.log(`elicitation declined: ${MAX_OPEN_ELICITATIONS} questions of this server are open already`);
        return { action: "decline" as const };
      }
      const ended = new AbortController();
      this.callsEnded.push(ended);
      let answer: Awaited<ReturnType<McpElicit>>;
      try {
        answer = await this.options.elicit({
          server: this.name,
          message: params.message,
          schema: params.requestedSchema ?? {},
          signal: AbortSignal.any([extra.signal, ended.signal, ...this.calls]),
        });
      } finally {
        const at = this.callsEnded.indexOf(ended);
        if (at !== -1) this.callsEnded.splice(at, 1);
      }
      return { ...answer } as { action: "accept" | "decline" | "cancel"; [key: string]: unknown };
    });
    client.onerror = (error) => this.log(`error: ${error.message}`);
    client.onclose = () => {
      // Only a connection that was up can drop; a failed start has already said why.
      if (this.closing || this.client !== client || this.state !== "connected") return;
      if (this.transport === "stdio") {
        this.state = "failed";
        const exit = (this.sdkTransport as StdioProcessTransport | undefined)?.exitDescription;
        this.error = `the server process ended${exit ? ` (${exit})` : ""}${this.logFile ? `; see ${this.logFile}` : ""}`;
      } else {
        this.dropped = true;
      }
    };
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      const { level, logger, data } = notification.params;
      this.log(
        `[${level}]${logger ? ` ${logger}:` : ""} ${typeof data === "string" ? data : JSON.stringify(data)}`,
      );
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        const tools = await this.listTools(client, { timeout: this.options.timeoutMs });
        if (this.client !== client) return;
        this.pendingTools = tools;
        this.options.onToolsChanged?.(this);
      } catch (error) {
        this.log(`tools/list after list_changed failed: ${errorText(error)}`);
      }
    });
    client.setNotificationHandler(PromptListChangedNotificationSchema, async () => {
      const prompts = await allPages((cursor) =>
        client.listPrompts(cursor ? { cursor } : {}).then((r) => ({ items: r.prompts, next: r.nextCursor })),
      ).catch(() => undefined);
      if (prompts && this.client === client) this.prompts = prompts;
    });
    return client;
  }

  private createTransport(config: McpServerConfig, oauth: McpOAuthProvider | undefined): Transport {
    if (config.type === "stdio") {
      return new StdioProcessTransport({
        command: config.command,
        args: config.args,
        env: mcpServerEnv(this.options.env, config.env),
        cwd: config.cwd ? resolve(this.options.cwd, config.cwd) : this.options.cwd,
        ...(this.logFile ? { logFile: this.logFile } : {}),
      });
    }
    const url = new URL(config.url);
    const base = this.options.fetch;
    const fetchImpl: FetchLike | undefined = oauth?.requireScope
      ? async (input, init) => {
          const response = await (base ?? fetch)(input, init);
          if (response.status === 403) {
            const header = response.headers.get("www-authenticate") ?? "";
            const scope = /insufficient_scope/.test(header) ? /scope="([^"]*)"/.exec(header)?.[1] : undefined;
            if (scope) oauth.requireScope?.(scope);
          }
          return response;
        }
      : base;
    const common = {
      requestInit: { headers: config.headers },
      ...(oauth ? { authProvider: oauth } : {}),
      ...(fetchImpl ? { fetch: fetchImpl } : {}),
    };
    return config.type === "http"
      ? new StreamableHTTPClientTransport(url, common)
      : new SSEClientTransport(url, common);
  }

  private describeFailure(error: unknown, deadline: AbortSignal): string {
    let text = deadline.aborted ? errorText(deadline.reason) : errorText(error);
    const exit = (this.sdkTransport as StdioProcessTransport | undefined)?.exitDescription;
    if (exit && !deadline.aborted) text = `${text} (the process ended: ${exit})`;
    const started = (this.sdkTransport as StdioProcessTransport | undefined)?.pid !== undefined;
    if (this.transport === "stdio" && this.logFile && started)
      text = `${text}; its stderr is in ${this.logFile}`;
    return text;
  }

  private log(line: string): void {
    if (!this.logFile) return;
    try {
      mkdirSync(dirname(this.logFile), { recursive: true, mode: 0o700 });
      appendFileSync(this.logFile, `${line}\n`, { mode: 0o600 });
    } catch {
      // A log that cannot be written is not worth failing a server for.
    }
  }
}

/** `MCP_TIMEOUT` for one connection attempt; restarted after a login, which takes a person's time. */
class Deadline {
  private controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly ms: number) {
    this.start();
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  restart(): void {
    this.clear();
    this.controller = new AbortController();
    this.start();
  }
  clear(): void {
    clearTimeout(this.timer);
  }
  private start(): void {
    const controller = this.controller;
    this.timer = setTimeout(
      () => controller.abort(new Error(`no answer within ${this.ms} ms (MCP_TIMEOUT)`)),
      this.ms,
    );
  }
}

/** Thrown inside `attempt` when the server needs a login that cannot be had now. */
class NeedsAuthError extends Error {
  override name = "NeedsAuthError";
}

/** Follows `nextCursor` until the last page (a server that repeats a cursor is cut off, not followed forever). */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next?: string | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.next;
    if (cursor !== undefined) {
      if (seen.has(cursor)) break;
      seen.add(cursor);
    }
  } while (cursor !== undefined);
  return items;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

async function closeQuietly(client: Client | undefined, transport: Transport | undefined): Promise<void> {
  try {
    if (client) await client.close();
    else await transport?.close();
  } catch {
    // Closing what already failed.
  }
  // A client that never connected does not own its transport yet.
  if (client && transport) await transport.close().catch(() => {});
}

/** A remote request that never reached the server: the connection was refused or reset, or the session is gone. */
function isDropped(error: unknown): boolean {
  // 404 is the spec's answer for an unknown session; some servers (server-everything) say 400 "No valid session ID".
  if (error instanceof StreamableHTTPError)
    return error.code === 404 || (error.code === 400 && /session/i.test(error.message));
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return (
    error instanceof TypeError ||
    cause === "ECONNREFUSED" ||
    cause === "ECONNRESET" ||
    /fetch failed|ECONNREFUSED|ECONNRESET|Not connected/i.test(errorText(error))
  );
}

/** A 403 for a scope the token lacks, after the SDK's own try (a refresh) did not help. */
function isScopeRefused(error: unknown): boolean {
  return (
    error instanceof StreamableHTTPError &&
    error.code === 403 &&
    /upscoping|insufficient_scope/i.test(error.message)
  );
}

function isUnauthorized(error: unknown): boolean {
  if (error instanceof StreamableHTTPError && error.code === 401) return true;
  return (
    error instanceof UnauthorizedError || /\b401\b|unauthori[sz]ed|invalid_token/i.test(errorText(error))
  );
}

export function errorText(error: unknown): string {
  if (error instanceof Error) {
    // fetch says only "fetch failed"; why (ECONNREFUSED, bad port, a certificate) is in its cause.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message;
    return why && !error.message.includes(why) ? `${error.message} (${why})` : error.message;
  }
  return String(error);
}

function safeFileName(name: string): string {
  return name.replace(/[^a-zA-Z0-9._-]/g, "_").slice(0, 80) || "server";
}
