import { applyCacheBreakpoints } from "../context/cache-breakpoints.js";
import { isReminderBlock } from "../context/reminder-engine.js";
import type { CodingAgent, CodingAgentOptions } from "../harness/coding-agent.js";
import { createCodingAgent } from "../harness/create-coding-agent.js";
import type { TextBlock } from "../messages/index.js";
import type { PermissionRequest } from "../permissions/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { DurableAgentSetup, DurableSession } from "./durable-agent-setup.js";

/** How a worker builds the mitsu coding agent for a session (`mitsu worker`). */
export interface CodingAgentSetupOptions
  extends Pick<
    CodingAgentOptions,
    "home" | "env" | "model" | "permissionMode" | "allowedTools" | "disallowedTools" | "maxTurns" | "fetch"
  > {
  /** How long an unused session's agent stays built on this worker; default 5 minutes. */
  idleMs?: number;
}

interface Built {
  agent: Promise<CodingAgent>;
  /** Called by the permission checker's `ask` for the call being probed (by tool-use id). */
  probes: Map<string, (request: PermissionRequest) => void>;
  lastUsed: number;
  timer?: NodeJS.Timeout;
}

/** A setup factory for `createDurableAgent`, and `close` for the worker's shutdown. */
export interface CodingAgentSetup {
  setup(session: DurableSession): Promise<DurableAgentSetup>;
  close(): Promise<void>;
}

/**
 * The mitsu coding agent (built-in tools, Task, the workspace's settings and skills, the permission rules) as a
 * durable session's setup. The workspace is never trusted (a checkout's own files grant nothing) and MCP
 * servers are off. Each session's agent is built once per worker and kept while the session is active (an
 * invocation resumes many times: once per journaled step). A call the rules would ask about is asked durably
 * (`DurableDecision` "ask"); a sub-agent cannot ask (its whole run is one step) and is denied such a call.
 */
export function codingAgentSetup(options: CodingAgentSetupOptions): CodingAgentSetup {
  const built = new Map<string, Built>();
  const idleMs = options.idleMs ?? 5 * 60_000;

  const release = async (key: string) => {
    const entry = built.get(key);
    if (!entry) return;
    built.delete(key);
    clearTimeout(entry.timer);
    await (await entry.agent.catch(() => undefined))?.close();
  };

  const build = (session: DurableSession): Built => {
    const probes = new Map<string, (request: PermissionRequest) => void>();
    const cwd = session.workspace;
    if (cwd === undefined) throw new Error("The coding agent needs a workspace");
    const agent = createCodingAgent({
      cwd,
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.env !== undefined ? { env: options.env } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.permissionMode !== undefined ? { permissionMode: options.permissionMode } : {}),
      ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
      ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      trust: false,
      session: { log: false },
      mcp: false,
      compaction: false,
      ask: async (request) => {
        probes.get(request.toolUseId)?.(request);
        return "deny";
      },
    });
    return { agent, probes, lastUsed: Date.now() };
  };

  return {
    async setup(session) {
      const key = `${session.id}\0${session.workspace ?? ""}`;
      let entry = built.get(key);
      if (!entry) {
        entry = build(session);
        built.set(key, entry);
      }
      const current = entry;
      clearTimeout(current.timer);
      current.lastUsed = Date.now();
      let agent: CodingAgent;
      try {
        agent = await current.agent;
      } catch (error) {
        built.delete(key);
        throw error;
      }
      const maxTokens = Math.min(agent.maxOutputTokens, 32_000);
      return {
        provider: agent.provider,
        model: agent.model,
        system: agent.context.system,
        tools: [...agent.tools],
        maxTokens,
        ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
        prepareRequest: (request) => applyCacheBreakpoints(request),
        // The turn's reminders (a file Read changed on disk, the todo list), as the harness's context adds them
        // locally: journaled by the durable run, so a replay on another worker sends the same.
        reminders: async (request, info) => {
          const prepared = await agent.context.prepareRequest(request, info);
          return addedReminders(request, prepared);
        },
        // The first message carries what the harness's context adds to a conversation's start (the project
        // instructions, the skills list): prepared as a new epoch, so it never depends on what this worker sent before.
        firstMessage: async (message) => {
          const prepared = await agent.context.prepareRequest(
            {
              model: agent.model,
              system: agent.context.system,
              tools: agent.context.tools,
              messages: [message],
              maxTokens,
            },
            { turn: 1, newEpoch: { reason: "durable session" } },
          );
          return prepared.messages.at(-1) ?? message;
        },
        spawn: agent.spawn,
        permissions: async (tool, input, context) => {
          let asked: PermissionRequest | undefined;
          current.probes.set(context.toolUseId, (request) => {
            asked = request;
          });
          try {
            const decision = await agent.permissions(tool, input, {
              toolUseId: context.toolUseId,
              signal: new AbortController().signal,
              state: context.state,
              agentPath: context.agentPath,
            });
            if (asked) return { behavior: "ask", display: asked.display, reason: asked.reason };
            return decision;
          } finally {
            current.probes.delete(context.toolUseId);
          }
        },
        close: async () => {
          current.timer = setTimeout(() => void release(key), idleMs);
          current.timer.unref();
        },
      };
    },
    async close() {
      await Promise.all([...built.keys()].map(release));
    },
  };
}

/** The reminder blocks `prepared` added to the request's newest message. */
function addedReminders(request: ModelRequest, prepared: ModelRequest): TextBlock[] {
  const before = new Set((request.messages.at(-1)?.content ?? []).map((block) => JSON.stringify(block)));
  return (prepared.messages.at(-1)?.content ?? []).filter(
    (block): block is TextBlock => isReminderBlock(block) && !before.has(JSON.stringify(block)),
  );
}
