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
import { createCompactor } from "../compaction/index.js";
import { type Context, createContext, prepareProjectDir, sizeBreakdown } from "../context/index.js";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import type { CanUseTool } from "../loop/permission.js";
import { type RunAgentOptions, runAgent } from "../loop/run-agent.js";
import { type Tool, toToolDefinition } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { addUsage, emptyUsage, type Message, type TextBlock, type Usage } from "../messages/index.js";
import { createPermissionChecker, loadSettings } from "../permissions/index.js";
import { childEnv } from "../process/child-env.js";
import { usageCost } from "../providers/model-prices.js";
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
  resumeMessages,
  SessionLog,
  type SessionToResume,
} from "../session/index.js";
import {
  activateSkill,
  activeAllowedTools,
  createSkillTool,
  discoverSkills,
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
  CostFigures,
  PermissionDenial,
  PromptOptions,
  SessionCost,
  SessionOptions,
} from "./coding-agent.js";
import { createDumpingFetch } from "./dumping-fetch.js";
import { createProxyFetch, proxyConfigured } from "./proxy-fetch.js";
import { sessionLogHooks } from "./session-log-hooks.js";
import { legacySessionsDir, sessionsDir } from "./sessions-dir.js";
import { openSubagentLog } from "./subagent-log.js";

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
  const settings = await loadSettings({ cwd, home });
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

  const skills = await discoverSkills({ cwd, home });
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
  const mode = options.permissionMode ?? "default";
  const permissions = createPermissionChecker({
    rules: settings.rules,
    mode: mode === "default" && settings.defaultMode ? settings.defaultMode : mode,
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
  if (toResume && !logging) {
    // Read only (`mitsu inspect -r`): the transcript, with pending calls answered; nothing written, no lock kept.
    if (!("heldBy" in toResume.lock)) toResume.lock.release();
    const { loaded } = toResume;
    history = resumeMessages(loaded.messages, loaded.header.version >= 2 ? loaded.calls : undefined);
  } else if (toResume) {
    const resumed = continueSession(toResume);
    log = resumed.log;
    history = resumed.history;
  }
  const resumedMessages = history.length;
  let used: number | undefined;
  let running = false;
  let thinking = options.thinkingBudget;
  /** max_tokens for a prompt: above the thinking budget (the API requires it), within the model's limit. */
  const maxTokensFor = (requested: number) =>
    thinking === undefined || requested > thinking
      ? requested
      : Math.min(thinking + 4096, Math.max(resolved.entry.maxOutputTokens, requested));
  const compaction = options.compaction === false ? { auto: false } : (options.compaction ?? {});
  const compactor = createCompactor({
    ...compaction,
    provider: resolved.provider,
    model: resolved.model,
    contextWindow: resolved.entry.contextWindow,
    maxTokens: defaultMaxTokens,
    base: () => ({ system: context.system, tools: context.tools }),
    ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
    onError: (error) => warn(`automatic compaction failed; continuing without it: ${error.message}`),
  });
  const replaceHistory =
    options.replaceHistory ?? (compaction.auto === false ? undefined : compactor.replaceHistory);
  // What the conversation cost: a resumed file's calls, then each call as it answers.
  const price = resolved.entry.price;
  const figures = (usage: Usage): CostFigures => ({
    usage,
    usd: price ? usageCost(usage, price, options.cacheTtl ?? "5m") : undefined,
  });
  let spent = { usage: toResume?.loaded.usage ?? emptyUsage(), calls: toResume?.loaded.modelCalls ?? 0 };
  let lastCall: Usage | undefined;
  const bySubagent = new Map<string, Usage>();
  const count = (usage: Usage, agentPath: readonly string[] = []) => {
    spent = { usage: addUsage(spent.usage, usage), calls: spent.calls + 1 };
    if (agentPath.length === 0) return;
    const key = agentPath.join("/");
    bySubagent.set(key, addUsage(bySubagent.get(key) ?? emptyUsage(), usage));
  };
  /** Set by `compact()` between prompts: the next request starts a new prefix epoch. */
  let pendingEpoch: { reason: string } | undefined;
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
    price,
    get thinkingBudget() {
      return thinking;
    },
    setThinking(budget) {
      if (budget !== undefined && (!Number.isInteger(budget) || budget < 1024))
        throw new RangeError("A thinking budget is a whole number of tokens, at least 1024");
      thinking = budget;
    },
    contextBreakdown() {
      return sizeBreakdown({
        model: resolved.model,
        system: context.system,
        tools: context.tools,
        messages: history,
        maxTokens: defaultMaxTokens,
      });
    },
    cost(): SessionCost {
      const subagents: SessionCost["subagents"] = {};
      for (const [key, usage] of bySubagent) subagents[key] = figures(usage);
      return {
        ...figures(spent.usage),
        ...(lastCall ? { last: figures(lastCall) } : {}),
        subagents,
        calls: spent.calls,
      };
    },
    compactionThreshold: replaceHistory === compactor.replaceHistory ? compactor.threshold : undefined,
    async compact(focus, compactOptions = {}) {
      if (closed) throw new Error("This agent is closed.");
      if (running) throw new Error("A prompt is running on this agent; compact after its end.");
      running = true;
      try {
        const done = await compactor.compact(history, {
          ...(focus ? { focus } : {}),
          ...(compactOptions.signal ? { signal: compactOptions.signal } : {}),
        });
        const { messages, reason, summary, before, tokensBefore, tokensAfter, usage } = done;
        log?.appendEntry({
          type: "compaction",
          reason,
          before,
          messages,
          summary,
          tokensBefore,
          tokensAfter,
          usage,
        });
        history = messages;
        pendingEpoch = { reason };
        count(usage);
        lastCall = usage;
        used = undefined;
        return done;
      } finally {
        running = false;
      }
    },
    previewCompaction(focus) {
      return compactor.preview(history, focus);
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
          maxTokens: maxTokensFor(promptOptions.maxTokens ?? defaultMaxTokens),
          ...(thinking !== undefined ? { thinkingBudget: thinking } : {}),
          canUseTool,
          toolState,
          spawn,
          contextWindow: resolved.entry.contextWindow,
          prepareRequest: (request, info) => {
            const epoch = pendingEpoch;
            pendingEpoch = undefined;
            return context.prepareRequest(
              request,
              epoch && !info.newEpoch ? { ...info, newEpoch: epoch } : info,
            );
          },
          ...(log ? sessionLogHooks(log) : {}),
          ...(options.journal ? { journal: options.journal } : {}),
          ...(replaceHistory ? { replaceHistory } : {}),
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
          if (event.type === "history-replaced") {
            if (event.usage) count(event.usage, event.agentPath);
            if (event.agentPath.length === 0) used = event.tokensAfter;
          }
          if (event.type === "message" && event.message.role === "assistant" && event.message.usage) {
            count({ ...emptyUsage(), ...event.message.usage }, event.agentPath);
            if (event.agentPath.length === 0) lastCall = event.message.usage;
          }
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
      pendingEpoch = undefined;
      // The cost stays: it is what this agent has spent, across conversations (what the user pays).
      lastCall = undefined;
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
  const toResume = loadSessionToResume(path, fromLegacy || choice.fork ? { moveTo: dir } : {});
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
