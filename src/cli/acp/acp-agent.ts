import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  type InitializeResponse,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { listProjectSessions } from "../../harness/index.js";
import type { CliOptions } from "../cli-options.js";
import { packageVersion } from "../version.js";
import { AcpSession } from "./acp-session.js";
import { clientMcpConfig } from "./client-mcp-servers.js";
import { isPermissionMode } from "./session-modes.js";
import { titleOf } from "./session-title.js";

export interface AcpAgentSetup {
  options: CliOptions;
  /** Where `mitsu acp` was started: the folder `session/list` lists without a `cwd`. */
  cwd: string;
  home: string;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
}

/** The most sessions `session/list` returns (newest first). */
const MAX_LISTED = 200;

/** A session id mitsu gives (a UUID): anything else names no session (and never a file path). */
const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The variables a provider key comes from (a models.json provider may need none). */
const KEY_VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
];

/**
 * mitsu as an ACP agent: the methods of the protocol's stable v1 over many sessions (each an `AcpSession`, its
 * own coding agent and session log). The SDK checks each request's params against the protocol's schema
 * (-32602), answers unknown methods (-32601) and requests before `initialize` (-32600); the handlers add the
 * session errors (-32002 for an unknown session) and the rest. `closeAll` ends every session (the connection
 * closed).
 */
export function createAcpAgent(setup: AcpAgentSetup): { app: AgentApp; closeAll: () => Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  /** Sessions being opened: a close waits for them, so none outlives the connection. */
  const opening = new Set<Promise<unknown>>();
  /** `session/load`s under way, by session id. */
  const loads = new Map<string, Promise<AcpSession>>();
  let capabilities: ClientCapabilities = {};
  let closed = false;

  const sessionOf = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (!session) throw RequestError.sessionNotFound(sessionId);
    return session;
  };
  const open = async (
    client: AgentContext,
    params: {
      cwd: string;
      mcpServers?: Parameters<typeof AcpSession.open>[0]["mcpServers"];
      additionalDirectories?: string[];
    },
    sessionId: string,
    resume: boolean,
  ): Promise<AcpSession> => {
    if (closed) throw RequestError.internalError(undefined, "the connection is closing");
    requireKey(setup);
    const cwd = workspaceFolder(params.cwd);
    try {
      clientMcpConfig(params.mcpServers);
    } catch (error) {
      throw RequestError.invalidParams({ mcpServers: params.mcpServers }, (error as Error).message);
    }
    const starting = AcpSession.open({
      ...setup,
      client,
      capabilities,
      cwd,
      sessionId,
      resume,
      mcpServers: params.mcpServers ?? [],
      additionalDirectories: (params.additionalDirectories ?? []).map(workspaceFolder),
    });
    opening.add(starting);
    try {
      const session = await starting;
      if (closed) {
        await session.close();
        throw RequestError.internalError(undefined, "the connection is closing");
      }
      sessions.set(session.id, session);
      return session;
    } catch (error) {
      if (error instanceof RequestError) throw error;
      // No session file of that id among this workspace's sessions.
      if (resume && /^No session /.test((error as Error).message))
        throw RequestError.sessionNotFound(sessionId);
      throw RequestError.internalError(undefined, (error as Error).message);
    } finally {
      opening.delete(starting);
    }
  };

  const app = agent({ name: "mitsu" })
    .onRequest("initialize", ({ params }): InitializeResponse => {
      capabilities = params.clientCapabilities ?? {};
      return {
        // The client's version when this agent speaks it, else the latest this agent speaks (the client decides).
        protocolVersion:
          params.protocolVersion === PROTOCOL_VERSION ? params.protocolVersion : PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { close: {}, list: {}, resume: {}, additionalDirectories: {} },
        },
        authMethods: hasKey(setup)
          ? []
          : [
              {
                id: "api-key",
                name: "API key",
                description:
                  "Set ANTHROPIC_API_KEY (or OPENAI_API_KEY, GEMINI_API_KEY) in the agent server's env, or a provider in ~/.mitsu/models.json",
              },
            ],
        agentInfo: { name: "mitsu", title: "mitsu", version: packageVersion() },
      };
    })
    .onRequest("authenticate", () => {
      requireKey(setup);
      return {};
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(client, params, randomUUID(), false);
      setImmediate(() => session.announceCommands());
      return { sessionId: session.id, modes: session.modes, configOptions: session.configOptions };
    })
    .onRequest("session/load", async ({ params, client }) => {
      if (!SESSION_ID.test(params.sessionId)) throw RequestError.sessionNotFound(params.sessionId);
      let session = sessions.get(params.sessionId);
      if (!session) {
        // Two loads of one session at once open it once (a second opening would continue in a copy).
        let loading = loads.get(params.sessionId);
        if (!loading) {
          loading = open(client, params, params.sessionId, true);
          loads.set(params.sessionId, loading);
          loading.then(
            () => loads.delete(params.sessionId),
            () => loads.delete(params.sessionId),
          );
        }
        session = await loading;
      }
      await session.replay();
      const loaded = session;
      setImmediate(() => loaded.announceCommands());
      return { modes: session.modes, configOptions: session.configOptions };
    })
    .onRequest("session/list", ({ params }) => {
      const cwd = workspaceFolder(params.cwd ?? setup.cwd);
      const sessions = listProjectSessions({ cwd, home: setup.home }).slice(0, MAX_LISTED);
      return {
        sessions: sessions.map((session) => ({
          sessionId: session.id,
          cwd,
          title: titleOf(session.firstPrompt),
          updatedAt: session.updatedAt.toISOString(),
        })),
      };
    })
    .onRequest("session/resume", async ({ params, client }) => {
      // As session/load, without the history replayed (the client has it).
      if (!SESSION_ID.test(params.sessionId)) throw RequestError.sessionNotFound(params.sessionId);
      const session =
        sessions.get(params.sessionId) ??
        (await open(client, { ...params, mcpServers: params.mcpServers ?? [] }, params.sessionId, true));
      const resumed = session;
      setImmediate(() => resumed.announceCommands());
      return { modes: session.modes, configOptions: session.configOptions };
    })
    .onRequest("session/prompt", ({ params }) => sessionOf(params.sessionId).prompt(params.prompt))
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (!isPermissionMode(params.modeId)) {
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `no mode ${JSON.stringify(params.modeId)}`,
        );
      }
      session.setMode(params.modeId);
      return {};
    })
    .onRequest("session/set_config_option", ({ params }) => {
      const session = sessionOf(params.sessionId);
      if (params.configId !== "model" || typeof params.value !== "string") {
        throw RequestError.invalidParams(
          { configId: params.configId },
          `no option ${JSON.stringify(params.configId)}`,
        );
      }
      session.setModel(params.value);
      return { configOptions: session.configOptions };
    })
    .onRequest("session/close", async ({ params }) => {
      const session = sessionOf(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    });

  const closeAll = async () => {
    closed = true;
    await Promise.allSettled([...opening]);
    const all = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(all.map((session) => session.close()));
  };
  return { app, closeAll };
}

/** The client's `cwd` (or another workspace folder): an absolute path of an existing folder (ACP requires absolute paths). */
function workspaceFolder(cwd: string): string {
  if (!cwd.startsWith("/") || cwd.includes("\0")) {
    throw RequestError.invalidParams({ cwd }, `${JSON.stringify(cwd)} is not an absolute path`);
  }
  let isFolder = false;
  try {
    isFolder = statSync(cwd).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder)
    throw RequestError.invalidParams({ cwd }, `${JSON.stringify(cwd)} is not an existing folder`);
  return cwd;
}

function hasKey(setup: AcpAgentSetup): boolean {
  return (
    KEY_VARIABLES.some((name) => (setup.env[name] ?? "") !== "") ||
    existsSync(join(setup.home, ".mitsu", "models.json"))
  );
}

function requireKey(setup: AcpAgentSetup): void {
  if (!hasKey(setup)) {
    throw RequestError.authRequired(
      undefined,
      "no provider key: set ANTHROPIC_API_KEY (or OPENAI_API_KEY, GEMINI_API_KEY) in the agent server's env",
    );
  }
}
