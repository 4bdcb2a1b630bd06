import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  createSubagentSpawner,
  createTaskTool,
  formatAgentWarning,
  loadAgentDefinitions,
  spawnRequestFor,
  subagentEnvironment,
} from "../agents/index.js";
import { type Context, createContext, prepareProjectDir } from "../context/index.js";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import type { CanUseTool } from "../loop/permission.js";
import { type RunAgentOptions, runAgent } from "../loop/run-agent.js";
import { type Tool, toToolDefinition } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import type { Message, TextBlock } from "../messages/index.js";
import { createPermissionChecker } from "../permissions/index.js";
import { childEnv } from "../process/child-env.js";
import { resolveModel } from "../providers/model-registry.js";
import {
  configuredHeaderNames,
  configuredKeyEnvNames,
  loadModelsConfig,
} from "../providers/models-config.js";
import type { ModelRequest } from "../providers/provider.js";
import { withXmlToolProtocol } from "../providers/xml/index.js";
import {
  continueSession,
  findSession,
  latestSession,
  loadSessionToResume,
  SessionLog,
  type SessionToResume,
} from "../session/index.js";
import {
  activateSkill,
  activeAllowedTools,
  createSkillTool,
  expandInvocation,
  findSlashTarget,
  parseSlash,
  renderSkillsList,
} from "../skills/index.js";
import { createBuiltinTools } from "../tools/create-builtin-tools.js";
import { getReadTracker } from "../tools/read-tracker.js";
import { appendPrompt } from "./append-prompt.js";
import type {
  CodingAgent,
  CodingAgentOptions,
  ContextWindowUsage,
  PermissionDenial,
  PromptOptions,
  SessionOptions,
} from "./coding-agent.js";
import { createDumpingFetch } from "./dumping-fetch.js";
import { createProxyFetch, proxyConfigured } from "./proxy-fetch.js";
import { sessionLogHooks } from "./session-log-hooks.js";
import { legacySessionsDir, sessionsDir } from "./sessions-dir.js";
import { openSubagentLog } from "./subagent-log.js";
import { loadWorkspace } from "./workspace-trust.js";

const DEFAULT_MAX_TURNS = 50;

/** The model when the caller names none. */
export const DEFAULT_MODEL = "anthropic:claude-sonnet-5-5";

/** `MITSU_MODEL`, then `ANTHROPIC_MODEL` (Claude Code's variable), then the settings' `model`, then the default. */
export function defaultModel(env: Record<string, string | undefined>, fromSettings?: string): string {
  const pick = (v: string | undefined) => (v && v.trim() !== "" ? v.trim() : undefined);
  return pick(env.MITSU_MODEL) ?? pick(env.ANTHROPIC_MODEL) ?? pick(fromSettings) ?? DEFAULT_MODEL;
}

/**
 * Assembles the mitsu coding agent for a workspace — the composition root: the model from the registry,
 * the built-in tools and the Skill tool, the permission checker over the settings' rules, the skills, the
 * context, the sub-agent spawner, and the conversation (a new session log, or a resumed one).
 * Throws when the model spec or a session file to resume is unusable (the message says which and why).
 */
export async function createCodingAgent(options: CodingAgentOptions): Promise<CodingAgent> {
  const cwd = resolve(options.cwd);
  const home = options.home ?? homedir();
  const where = { cwd, home };
  const warn = (message: string) => options.onWarning?.(message);
  // What the workspace's own files grant counts only once the user trusts it (see loadWorkspace).
  const {
    settings,
    catalog: skills,
    trusted,
  } = await loadWorkspace({
    cwd,
    home,
    flag: options.trust === true,
    ...(options.askTrust ? { ask: options.askTrust } : {}),
    notice: warn,
  });
  for (const ignored of settings.ignoredEnv) {
    warn(
      `${ignored} is ignored: a project's settings may not route keys or traffic (set it in ~/.mitsu/settings.json)`,
    );
  }
  // Settings' `env` is applied over the process's, as Claude Code does.
  const env = { ...(options.env ?? process.env), ...settings.env };
  const model = options.model ?? defaultModel(env, settings.model);
  const models = loadModelsConfig(home);
  // Keys named in models.json are secrets for every child process, whichever provider this agent uses.
  const secretEnv = configuredKeyEnvNames(models);
  const scrubbed = childEnv(env, { drop: secretEnv });
  const baseFetch = options.fetch ?? (proxyConfigured(env) ? await createProxyFetch(env) : fetch);
  const dumping = options.dumpRequests
    ? createDumpingFetch(options.dumpRequests, baseFetch, configuredHeaderNames(models))
    : undefined;
  const fetchImpl = dumping ?? baseFetch;
  const resolveSpec = (spec: string) => {
    const resolved = resolveModel(spec, env, { home, fetch: fetchImpl });
    const provider =
      options.toolProtocol === "xml" ? withXmlToolProtocol(resolved.provider) : resolved.provider;
    return { ...resolved, provider };
  };
  const resolved = resolveSpec(model);

  // The command line wins over every settings file.
  const permissionMode = options.permissionMode
    ? { mode: options.permissionMode, origin: "--permission-mode" }
    : settings.defaultMode
      ? { mode: settings.defaultMode, origin: `permissions.defaultMode in ${settings.defaultModeSource}` }
      : { mode: "default" as const, origin: "the default" };
  for (const warning of skills.warnings) warn(`${warning.path}: ${warning.message}`);

  const loadedAgents = await loadAgentDefinitions({ cwd, home });
  for (const warning of loadedAgents.warnings) warn(formatAgentWarning(warning));
  // Agents defined in code beat the files' (an embedder's choice is the most specific).
  const codeAgents = options.agents ?? [];
  const agents = {
    agents: [
      ...loadedAgents.agents.filter((a) => !codeAgents.some((c) => c.name === a.name)),
      ...codeAgents,
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    warnings: loadedAgents.warnings,
  };

  const additionalRoots = [...settings.additionalDirectories, ...(options.addDirs ?? [])];
  // The model's persistent memory folder, which the system prompt tells it to Read and Write; created private
  // (0700), with the memory of the project's old, non-unique folder carried over the first time.
  const memory = join(prepareProjectDir(where), "memory");
  // A tool denied as a whole (`--disallowedTools Bash`) is not offered at all: the model cannot call what it
  // is not told of, and the request does not carry a definition it must not use.
  const removed = new Set((options.disallowedTools ?? []).filter((rule) => !rule.includes("(")));
  const extra = options.tools ?? [];
  const builtin: Tool<never>[] = [
    ...(createBuiltinTools({
      cwd,
      additionalRoots,
      env: scrubbed,
      secretEnv,
      memoryDir: memory,
      // Read deny rules also keep Grep and Glob out of what they cover.
      searchExcludes: (root) => permissions.readExcludes(root),
    }) as Tool<never>[]),
    createSkillTool(() => skills.skills) as unknown as Tool<never>,
    createTaskTool({
      agents: agents.agents,
      toolNames: () => tools.map((t) => t.name),
    }) as unknown as Tool<never>,
  ];
  // An embedder's tool of a built-in's name (its own Task) takes that tool's place.
  const tools: Tool<never>[] = [
    ...builtin.filter((t) => !extra.some((e) => e.name === t.name)),
    ...extra,
  ].filter((tool) => !removed.has(tool.name));
  const toolState = new ToolState();
  const permissions = createPermissionChecker({
    rules: settings.rules,
    mode: permissionMode.mode,
    additionalDirectories: additionalRoots,
    ownFolders: [memory],
    home,
    preApproved: activeAllowedTools,
    allowedTools: options.allowedTools ?? [],
    disallowedTools: options.disallowedTools ?? [],
    cwd,
    ...(options.ask ? { ask: options.ask } : {}),
  });
  // Every denial of this conversation, in order, for a result report (Claude Code's `permission_denials`).
  const denials: PermissionDenial[] = [];
  const canUseTool: CanUseTool = async (tool, input, ctx) => {
    const decision = await permissions(tool, input, ctx);
    if (decision.behavior === "deny") {
      denials.push({ tool_name: tool.name, tool_use_id: ctx.toolUseId, tool_input: input });
    }
    return decision;
  };
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const defaultMaxTokens = options.maxTokens ?? Math.min(resolved.entry.maxOutputTokens, 32_000);
  const spawn = createSubagentSpawner({
    tools,
    parent: {
      provider: resolved.provider,
      providerName: resolved.entry.provider,
      model: resolved.model,
      maxOutputTokens: resolved.entry.maxOutputTokens,
      contextWindow: resolved.entry.contextWindow,
    },
    resolveModel: (spec) => {
      const child = resolveSpec(spec);
      const { maxOutputTokens, contextWindow } = child.entry;
      return { provider: child.provider, model: child.model, maxOutputTokens, contextWindow };
    },
    canUseTool,
    environment: subagentEnvironment({ cwd, now: new Date(), env }),
    cwd,
    home,
    env,
    ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
    maxTurns,
    ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    maxDepth: options.maxAgentDepth ?? 1,
    // A child's transcript goes beside the conversation's log, linked from it by the Task call's id.
    transcript: (info) => (log ? openSubagentLog(log, info) : undefined),
    ...(options.journal ? { journal: options.journal } : {}),
  });

  const makeContext = (resumed?: { system: TextBlock[]; createdAt?: Date }): Promise<Context> =>
    createContext({
      cwd,
      home,
      model: resolved.model,
      tools: tools.map((t) => toToolDefinition(t)),
      skills: () => renderSkillsList(skills.skills) || undefined,
      trackedFiles: () => getReadTracker(toolState).entries(),
      ...(options.appendSystemPrompt ? { extra: options.appendSystemPrompt } : {}),
      ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
      env,
      git: { env: scrubbed, secretEnv },
      ...(resumed ? { system: resumed.system } : {}),
      ...(resumed?.createdAt ? { systemDate: resumed.createdAt } : {}),
    });
  // The session to continue is locked and read now: its system prompt is the one to send again.
  const sessionOptions = options.session ?? {};
  const dir = sessionOptions.dir ?? sessionsDir(where);
  const toResume = findSessionToResume(sessionOptions, dir, where, warn);
  const header = toResume?.loaded.header;
  let context: Context;
  try {
    context = await makeContext(
      header?.system ? { system: header.system, createdAt: new Date(header.createdAt) } : undefined,
    );
  } catch (error) {
    if (toResume && !("heldBy" in toResume.lock)) toResume.lock.release();
    throw error;
  }

  const logging = sessionOptions.log !== false;
  const newLog = () =>
    SessionLog.create(dir, {
      cwd,
      model: `${resolved.provider.api}:${resolved.model}`,
      system: context.system,
    });
  let log: SessionLog | undefined;
  let history: Message[] = [];
  if (toResume) {
    const resumed = continueSession(toResume);
    log = resumed.log;
    history = resumed.history;
  }
  const resumedMessages = history.length;
  let used: number | undefined;
  let running = false;
  let closed = false;

  const byName = new Map(tools.map((t) => [t.name, t]));
  const agent: CodingAgent = {
    provider: resolved.provider,
    providerName: resolved.entry.provider,
    model: resolved.model,
    maxOutputTokens: resolved.entry.maxOutputTokens,
    tools,
    get context() {
      return context;
    },
    permissions,
    permissionMode,
    trusted,
    toolState,
    skills,
    agents,
    get history() {
      return history;
    },
    resumedMessages,
    get sessionPath() {
      return log?.path;
    },
    permissionDenials: denials,
    get sessionId() {
      return log?.header.id;
    },
    spawn,
    childEnv: scrubbed,
    contextWindow(): ContextWindowUsage {
      return { limit: resolved.entry.contextWindow, used };
    },
    async *prompt(text: string, promptOptions: PromptOptions = {}): AsyncGenerator<AgentEvent, AgentResult> {
      if (closed) throw new Error("This agent is closed.");
      if (running) throw new Error("A prompt is already running on this agent; wait for its end.");
      running = true;
      try {
        // A new session file is made with the first prompt: a command that sends nothing leaves no file.
        if (!log && logging) log = newLog();
        const runOptions: RunAgentOptions = {
          provider: resolved.provider,
          model: resolved.model,
          system: context.system,
          tools,
          messages: appendPrompt(history, text),
          maxTurns: promptOptions.maxTurns ?? maxTurns,
          maxTokens: promptOptions.maxTokens ?? defaultMaxTokens,
          canUseTool,
          toolState,
          spawn,
          contextWindow: resolved.entry.contextWindow,
          prepareRequest: (request, info) => context.prepareRequest(request, info),
          ...(log ? sessionLogHooks(log) : {}),
          ...(options.journal ? { journal: options.journal } : {}),
          ...(options.replaceHistory ? { replaceHistory: options.replaceHistory } : {}),
          ...(promptOptions.signal ? { signal: promptOptions.signal } : {}),
          ...(promptOptions.liveInput !== undefined ? { liveInput: promptOptions.liveInput } : {}),
        };
        const run = runAgent(runOptions);
        for (;;) {
          const next = await run.next();
          if (next.done) {
            history = next.value.messages;
            return next.value;
          }
          const event = next.value;
          if (
            event.type === "message" &&
            event.agentPath.length === 0 &&
            event.message.role === "assistant"
          ) {
            const usage = event.message.usage;
            if (usage) {
              used = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
            }
          }
          yield event;
        }
      } finally {
        running = false;
      }
    },
    expandSlash(line) {
      const slash = parseSlash(line.trim());
      if (!slash) return { kind: "none" };
      const target = findSlashTarget(slash.name, skills);
      if (!target) return { kind: "unknown", name: slash.name };
      activateSkill(toolState, target);
      return { kind: "prompt", text: expandInvocation(target, slash.args) };
    },
    async previewRequest(text) {
      // A throwaway context with the same system prompt: the agent's own context is not advanced.
      const preview = await makeContext({ system: context.system });
      const request: ModelRequest = {
        model: resolved.model,
        system: preview.system,
        tools: tools.map((t) => toToolDefinition(t)),
        messages: appendPrompt(history, text),
        maxTokens: defaultMaxTokens,
      };
      return preview.prepareRequest(request, { turn: 1 });
    },
    async previewSubagentRequest(name, text) {
      const definition = agents.agents.find((a) => a.name === name);
      if (!definition) return undefined;
      return spawn.firstRequest(
        spawnRequestFor(definition, { prompt: text }, { toolNames: () => tools.map((t) => t.name) }),
      );
    },
    summarize(block) {
      const tool = byName.get(block.name);
      try {
        return tool?.summarize
          ? tool.summarize(block.input as never)
          : `${block.name}(${JSON.stringify(block.input)})`;
      } catch {
        return block.name;
      }
    },
    async clear() {
      context = await makeContext();
      toolState.clear();
      history = [];
      used = undefined;
      // The earlier conversation's file is done with: another mitsu may continue it now.
      log?.close();
      log = undefined;
    },
    async close() {
      closed = true;
      log?.close();
      await dumping?.flush();
    },
  };
  return agent;
}

/**
 * The session file to continue, locked and loaded (`-r <file>`, or with `-c` the newest of this folder, under
 * its current or its old project folder); undefined for a new session. A file another live mitsu appends to
 * is continued in a copy, with a notice.
 */
function findSessionToResume(
  choice: SessionOptions,
  dir: string,
  where: { cwd: string; home: string },
  warn: (message: string) => void,
): SessionToResume | undefined {
  const legacy = legacySessionsDir(where);
  const path = choice.resume
    ? findSession(dir, choice.resume, where.cwd)
    : choice.continue
      ? latestSession([dir, legacy], where.cwd)
      : undefined;
  if (choice.continue && !choice.resume && !path)
    warn("no earlier session in this folder; starting a new one");
  if (!path) return undefined;
  // A session found under the old, non-unique project folder is continued in a copy in the current one.
  const fromLegacy = !choice.resume && path.startsWith(`${legacy}/`) && legacy !== dir;
  const toResume = loadSessionToResume(path, fromLegacy ? { moveTo: dir } : {});
  if ("heldBy" in toResume.lock) {
    const holder = toResume.lock.heldBy;
    warn(
      `${path} is in use by another mitsu${holder?.pid !== undefined ? ` (process ${holder.pid})` : ""}; this session continues in a copy of its history`,
    );
  } else if (toResume.loaded.truncatedTail) {
    warn(`the last line of ${path} was cut (the process was killed); it was dropped`);
  }
  return toResume;
}
