import { randomBytes, randomUUID } from "node:crypto";
import { realpath } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  createSubagentSpawner,
  createTaskTool,
  formatAgentWarning,
  spawnRequestFor,
  subagentEnvironment,
} from "../agents/index.js";
import { createCompactor } from "../compaction/index.js";
import {
  type Context,
  createContext,
  type GitSnapshot,
  prepareProjectDir,
  sizeBreakdown,
  takeGitSnapshot,
  todoReminderSource,
} from "../context/index.js";
import {
  approveHooksFile,
  createHookRunner,
  type HookNotice,
  hookedCanUseTool,
  loadHooks,
  type UnapprovedHooksFile,
  withPostToolHooks,
} from "../hooks/index.js";
import type { AgentEvent, AgentPath, AgentResult } from "../loop/agent-event.js";
import type { ReplaceHistory } from "../loop/history-replacement.js";
import type { CanUseTool } from "../loop/permission.js";
import { type RunAgentOptions, runAgent } from "../loop/run-agent.js";
import type { Spawner } from "../loop/spawn.js";
import { summarizeCall } from "../loop/summarize-call.js";
import { type Tool, toToolDefinition } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { createMcpOAuth, startProjectMcp } from "../mcp/index.js";
import {
  addUsage,
  type ContentBlock,
  emptyUsage,
  type Message,
  type TextBlock,
  type Usage,
} from "../messages/index.js";
import { createPermissionChecker, type SandboxSettings, sandboxAutoAllows } from "../permissions/index.js";
import { childEnv } from "../process/child-env.js";
import { completeText } from "../providers/complete-text.js";
import { usageCost } from "../providers/model-prices.js";
import { helperModel, resolveModel } from "../providers/model-registry.js";
import {
  configuredHeaderNames,
  configuredKeyEnvNames,
  loadModelsConfig,
} from "../providers/models-config.js";
import type { ModelRequest } from "../providers/provider.js";
import { hasWebSearch, webSearch } from "../providers/web-search.js";
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
  clearSkillModel,
  createSkillTool,
  type DiscoverResult,
  expandInvocation,
  findSlashTarget,
  type InlineRun,
  parseSlash,
  renderSkillsList,
  skillModel,
} from "../skills/index.js";
import { BackgroundShells } from "../tools/background-shells.js";
import { createBuiltinTools } from "../tools/create-builtin-tools.js";
import { getReadTracker } from "../tools/read-tracker.js";
import { checkSandbox, type SandboxOptions } from "../tools/sandbox.js";
import { Workspace } from "../tools/workspace.js";
import { appendPrompt } from "./append-prompt.js";
import { CheckpointStore } from "./checkpoint-store.js";
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
import { inlineCapabilities } from "./inline-capabilities.js";
import { type ModelChoice, modelSpecFor } from "./model-choice.js";
import { createProxyFetch, proxyConfigured } from "./proxy-fetch.js";
import { rewindPointsOf } from "./rewind-points.js";
import { sessionLogHooks } from "./session-log-hooks.js";
import { legacySessionsDir, sessionsDir } from "./sessions-dir.js";
import { openSubagentLog } from "./subagent-log.js";
import { withCheckpoints } from "./with-checkpoints.js";
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
    agents: loadedAgents,
    trusted,
    trustedBy,
    hooks: workspaceHooks,
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
  // The MCP servers start now and connect while the rest is assembled; the agent waits for them before it is
  // handed out, so `tools` is complete and stable from the first request.
  const mcpOptions = options.mcp;
  const mcpStarting =
    mcpOptions === false
      ? Promise.resolve(undefined)
      : startProjectMcp({
          cwd,
          home,
          env,
          ...(mcpOptions?.configFiles ? { configFiles: mcpOptions.configFiles } : {}),
          ...(mcpOptions?.strict ? { strict: true } : {}),
          // A project's .mcp.json counts only in a trusted folder; there each server is still approved one by one.
          projectTrusted: trusted,
          ...(mcpOptions?.approve ? { approve: mcpOptions.approve } : {}),
          // Without a person to log in (print mode, an embedder), a server that needs one is reported as such.
          oauth: mcpOptions?.oauth ?? createMcpOAuth({ home, interactive: false }),
          onWarning: warn,
        });
  // Handled at once (a rejection must not go unhandled while the rest is assembled); awaited below.
  mcpStarting.catch(() => {});
  /** A start that fails below must leave no server running. */
  const closeMcpOnError = async (error: unknown): Promise<never> => {
    await (await mcpStarting.catch(() => undefined))?.servers.close();
    throw error;
  };
  const model = options.model ?? defaultModel(env, settings.model);
  const models = loadModelsConfig(home);
  // Keys named in models.json are secrets for every child process, whichever provider this agent uses.
  const secretEnv = configuredKeyEnvNames(models);
  const scrubbed = childEnv(env, { drop: secretEnv });
  // A new session's system prompt holds a git snapshot: its git processes start now and run while the rest is
  // assembled (a resumed session sends its old system prompt again and takes none).
  const sessionChoice = options.session ?? {};
  let earlyGitSnapshot: Promise<GitSnapshot> | undefined =
    sessionChoice.resume !== undefined || sessionChoice.continue
      ? undefined
      : takeGitSnapshot(cwd, { env: scrubbed, secretEnv });
  const baseFetch = options.fetch ?? (proxyConfigured(env) ? await createProxyFetch(env) : fetch);
  const dumping = options.dumpRequests
    ? createDumpingFetch(options.dumpRequests, baseFetch, configuredHeaderNames(models))
    : undefined;
  const fetchImpl = dumping ?? baseFetch;
  const resolveSpec = (spec: string) => {
    const resolved = resolveModel(spec, env, { home, fetch: fetchImpl });
    const provider =
      options.toolProtocol === "xml" ? withXmlToolProtocol(resolved.provider) : resolved.provider;
    return { ...resolved, provider, wireProvider: resolved.provider };
  };
  const resolved = resolveSpec(model);

  // The command line wins over every settings file.
  const permissionMode = options.permissionMode
    ? { mode: options.permissionMode, origin: "--permission-mode" }
    : settings.defaultMode
      ? { mode: settings.defaultMode, origin: `permissions.defaultMode in ${settings.defaultModeSource}` }
      : { mode: "default" as const, origin: "the default" };
  for (const warning of resolved.warnings ?? []) warn(warning);
  for (const warning of settings.warnings) warn(warning);
  for (const warning of skills.warnings) warn(`${warning.path}: ${warning.message}`);

  for (const warning of loadedAgents.warnings) warn(formatAgentWarning(warning));
  // Agents defined in code beat the files' (an embedder's choice is the most specific).
  const codeAgents = options.agents ?? [];
  const agents = {
    agents: [
      ...loadedAgents.agents.filter((a) => !codeAgents.some((c) => c.name === a.name)),
      ...codeAgents,
    ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    warnings: loadedAgents.warnings,
    ignored: loadedAgents.ignored,
  };

  const additionalRoots = [...settings.additionalDirectories, ...(options.addDirs ?? [])];
  // The model's persistent memory folder, which the system prompt tells it to Read and Write; created private
  // (0700), with the memory of the project's old, non-unique folder carried over the first time.
  const memory = join(prepareProjectDir(where), "memory");
  // A tool denied as a whole (`--disallowedTools Bash`) is not offered at all: the model cannot call what it
  // is not told of, and the request does not carry a definition it must not use.
  const removed = new Set((options.disallowedTools ?? []).filter((rule) => !rule.includes("(")));
  const sandboxSettings: SandboxSettings = options.sandbox
    ? { ...settings.sandbox, enabled: true, enabledBy: "cli" }
    : settings.sandbox;
  let sandbox: SandboxOptions | undefined;
  if (sandboxSettings.enabled) {
    sandbox = {
      writableRoots: [cwd, ...additionalRoots],
      allowNetwork: sandboxSettings.allowNetwork === true,
    };
    // Never a silent fallback: without bubblewrap the agent does not start.
    await checkSandbox({ ...sandbox, cwd });
  }
  const shells = new BackgroundShells({
    outputDir: join(tmpdir(), `mitsu-shells-${process.pid}-${randomBytes(4).toString("hex")}`),
  });
  // Side calls (WebFetch reading a page, a web search) go to a small model of the same provider, without the
  // XML tool protocol: they use no tools.
  const helper = helperModel(resolved.entry, env);
  const wire = resolved.wireProvider;
  const readOnlyRoots = await skillFolders(skills);
  // What `@file` in a command's or skill's text may read: what Read may.
  const readable = new Workspace([cwd, ...additionalRoots, ...Object.keys(readOnlyRoots)]);
  const inline = (run: InlineRun) => inlineCapabilities(tools, permissions, readable, run);
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
      readOnlyRoots,
      shells,
      ...(sandbox ? { sandbox } : {}),
      webFetch: {
        fetch: globalThis.fetch,
        complete: (prompt, signal) => completeText(wire, helper, prompt, { signal, maxTokens: 4096 }),
      },
      ...(hasWebSearch(wire)
        ? {
            webSearch: {
              search: (query, searchOptions) =>
                webSearch({ provider: wire, model: helper, query, ...searchOptions }),
            },
          }
        : {}),
    }) as Tool<never>[]),
    // `inline` is called at run time, once the permission checker below exists.
    createSkillTool(() => skills.skills, { inline }) as unknown as Tool<never>,
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
  // The MCP tools come last, in their fixed order. The array is changed in place (between prompts only), so the
  // sub-agents' spawner and the Task tool see the same list.
  const mcp = await mcpStarting;
  const fixedTools = tools.length;
  tools.push(...(mcp?.servers.tools ?? []));
  const toolState = new ToolState();

  // Hooks: the user's run; a project file's only in a trusted folder (one trust model: see loadWorkspace), and
  // there only as approved. A yes to the trust question, which listed them, approves them as they are now;
  // `--trust` runs them for this run; a folder trusted earlier whose hooks changed since is asked about again.
  // An untrusted folder's were read already, for the trust question.
  const loadedHooks = workspaceHooks ?? (await loadHooks({ ...where, trusted }));
  for (const warning of loadedHooks.warnings) warn(warning);
  const activeHooks = [...loadedHooks.hooks];
  const skippedHooks: UnapprovedHooksFile[] = [];
  for (const file of loadedHooks.unapproved) {
    if (!trusted) {
      skippedHooks.push(file);
    } else if (trustedBy === "--trust") {
      activeHooks.push(...file.hooks);
    } else if (
      trustedBy === "answered yes" ||
      (options.approveHooks !== undefined && (await options.approveHooks(file)))
    ) {
      await approveHooksFile(home, file.file, file.sha256);
      activeHooks.push(...file.hooks);
    } else {
      skippedHooks.push(file);
    }
  }
  // An untrusted folder's hooks were named already, by the workspace notice that came with `workspaceHooks`.
  if (skippedHooks.length > 0 && (trusted || workspaceHooks === undefined)) {
    const why = trusted
      ? "their project settings file is not approved; run mitsu interactively there to approve"
      : "this folder is not trusted; run mitsu interactively there and trust it, or pass --trust";
    warn(
      `hooks not run (${why}):\n${skippedHooks
        .flatMap((f) =>
          f.hooks.map((h) => `  - ${h.event}${h.matcher ? ` [${h.matcher}]` : ""}: ${h.command} (${f.file})`),
        )
        .join("\n")}`,
    );
  }
  let sessionId: string = randomUUID();
  /** When the next session file is (to be) created: its name, told to hooks before it exists. */
  let logStart: Date | undefined;
  const logDate = () => {
    logStart ??= new Date();
    return logStart;
  };
  let log: SessionLog | undefined;
  /** The history index of the user prompt now running (checkpoints are keyed by it). */
  let promptIndex: number | undefined;
  let checkpoints: CheckpointStore | undefined;
  /** The checkpoints of the session file now written to (none without a log). */
  const checkpointsOf = (): CheckpointStore | undefined => {
    if (!log) return undefined;
    const dir = log.path.replace(/\.jsonl$/, ".checkpoints");
    if (checkpoints?.dir !== dir) checkpoints = new CheckpointStore(dir, { warn });
    return checkpoints;
  };
  /** Hook notices raised during a prompt: yielded as `warning` events between the run's events. */
  const pendingNotices: HookNotice[] = [];
  let inPrompt = false;
  let stopRun: ((reason: string) => void) | undefined;
  const hookRunner = createHookRunner({
    hooks: activeHooks,
    ...(options.hooks ? { callbacks: options.hooks } : {}),
    cwd,
    env: scrubbed,
    base: () => ({
      // The session file's id, as Claude Code gives its hooks (a copy made for a session in use has its own).
      session_id: log?.header.id ?? sessionId,
      // Before the first prompt's file exists (SessionStart, UserPromptSubmit): where it will be written.
      transcript_path: log?.path ?? (logging ? SessionLog.pathFor(dir, sessionId, logDate()) : ""),
      cwd,
      permission_mode: permissionMode.mode,
    }),
    notify: (notice) => {
      if (notice.kind === "output" && !options.verboseHooks) return;
      if (inPrompt) pendingNotices.push(notice);
      else warn(notice.message);
    },
  });
  const onHookStop = (reason: string) => stopRun?.(reason);
  const userAsk = options.ask;
  // Notification hooks hear of each permission question as it is shown; they do not hold it up.
  const askWithNotification = userAsk
    ? (request: Parameters<typeof userAsk>[0]) => {
        void hookRunner.run("Notification", {
          message: `mitsu needs your permission to use ${request.toolName}`,
        });
        return userAsk(request);
      }
    : undefined;
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
    ...(askWithNotification ? { ask: askWithNotification } : {}),
    sandboxAutoAllow: sandbox !== undefined && sandboxAutoAllows(sandboxSettings),
  });
  const hookedCheck = hookedCanUseTool({
    runner: hookRunner,
    next: permissions,
    onStop: onHookStop,
    ...(askWithNotification
      ? {
          ask: async (
            toolName: string,
            input: Record<string, unknown>,
            reason: string,
            call: { toolUseId: string; signal: AbortSignal },
          ) => {
            const answer = await askWithNotification({
              toolName,
              input,
              toolUseId: call.toolUseId,
              display: toolName,
              suggestedRules: [],
              reason,
              signal: call.signal,
            });
            if (answer === "deny_and_stop") return "stop";
            return answer === "allow_once" || answer === "allow_always";
          },
        }
      : {}),
  });
  // Every denial of this conversation (a hook's too), in order, for a result report (Claude Code's `permission_denials`).
  const denials: PermissionDenial[] = [];
  const canUseTool: CanUseTool = async (tool, input, ctx) => {
    const decision = await hookedCheck(tool, input, ctx);
    if (decision.behavior === "deny") {
      denials.push({ tool_name: tool.name, tool_use_id: ctx.toolUseId, tool_input: input });
    }
    return decision;
  };
  // Before Write or Edit changes a file, its content is saved under the session's folder, keyed by the prompt.
  const checkpointed = withCheckpoints(tools, cwd, (path) => {
    if (promptIndex !== undefined) checkpointsOf()?.save(promptIndex, path);
  });
  const runTools = withPostToolHooks(checkpointed, hookRunner, onHookStop);
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const defaultMaxTokens = options.maxTokens ?? Math.min(resolved.entry.maxOutputTokens, 32_000);
  const spawnChild = createSubagentSpawner({
    tools: runTools,
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
  // SubagentStop: told when a sub-agent's run ends (its answer is already final).
  const spawn: typeof spawnChild = Object.assign(
    async function* (...args: Parameters<Spawner>): ReturnType<Spawner> {
      const result = yield* spawnChild(...args);
      if (hookRunner.has("SubagentStop")) await hookRunner.run("SubagentStop", { stop_hook_active: false });
      return result;
    },
    { firstRequest: spawnChild.firstRequest },
  );

  const makeContext = (resumed?: { system: TextBlock[]; createdAt?: Date }): Promise<Context> =>
    createContext({
      cwd,
      home,
      model: resolved.model,
      tools: tools.map((t) => toToolDefinition(t)),
      skills: () => renderSkillsList(skills.skills) || undefined,
      trackedFiles: () => getReadTracker(toolState).entries(),
      sources: [todoReminderSource()],
      ...(options.appendSystemPrompt ? { extra: options.appendSystemPrompt } : {}),
      ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
      env,
      git: { env: scrubbed, secretEnv },
      // Only the first context uses the early snapshot: a later one (/clear) is a new start, with a new snapshot.
      ...(earlyGitSnapshot && !resumed ? { gitSnapshot: earlyGitSnapshot } : {}),
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
    earlyGitSnapshot = undefined;
  } catch (error) {
    if (toResume && !("heldBy" in toResume.lock)) toResume.lock.release();
    return closeMcpOnError(error);
  }

  const logging = sessionOptions.log !== false;
  const newLog = () =>
    SessionLog.create(dir, {
      // The id hooks were already told (SessionStart fires before the file is written).
      id: sessionId,
      cwd,
      model: `${resolved.provider.api}:${resolved.model}`,
      system: context.system,
      now: logDate(),
    });
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
    sessionId = resumed.log.header.id;
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
  // PreCompact hooks hear of an automatic compaction before its summary is asked for (they cannot stop it).
  const autoCompact: ReplaceHistory = async (messages, info) => {
    if (compactor.tokens(messages) < compactor.threshold) return undefined;
    await hookRunner.run("PreCompact", { trigger: "auto", custom_instructions: "" }, { signal: info.signal });
    return compactor.replaceHistory(messages, info);
  };
  const replaceHistory = options.replaceHistory ?? (compaction.auto === false ? undefined : autoCompact);
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
  let pendingEpoch: { reason: string; keepReminders?: boolean } | undefined;
  let closed = false;
  /** How the next SessionStart names the conversation's start; undefined once it has fired. */
  let sessionSource: "startup" | "resume" | "clear" | undefined = toResume ? "resume" : "startup";
  const MAX_STOP_CONTINUATIONS = 5;

  let byName = new Map(tools.map((t) => [t.name, t]));
  /** Takes in the tool lists MCP servers changed since the last prompt; returns why, if any did. */
  const applyMcpChanges = (): string | undefined => {
    const reason = mcp?.servers.applyChanges();
    if (reason === undefined || !mcp) return undefined;
    tools.splice(fixedTools, tools.length - fixedTools, ...mcp.servers.tools);
    // The tools the runs get (PostToolUse hooks around them) change the same way, in place.
    runTools.splice(
      fixedTools,
      runTools.length - fixedTools,
      ...withPostToolHooks(mcp.servers.tools, hookRunner, onHookStop),
    );
    byName = new Map(tools.map((t) => [t.name, t]));
    context.explainNextChange(reason);
    return reason;
  };
  const modelFor = (spec: string | undefined): ModelChoice | undefined => {
    const full = modelSpecFor(spec, { provider: resolved.entry.provider, model: resolved.model });
    if (full === undefined) return undefined;
    const other = resolveSpec(full);
    return { provider: other.provider, model: other.model, maxOutputTokens: other.entry.maxOutputTokens };
  };
  const agent: CodingAgent = {
    provider: resolved.provider,
    providerName: resolved.entry.provider,
    model: resolved.model,
    maxOutputTokens: resolved.entry.maxOutputTokens,
    tools,
    mcp,
    get context() {
      return context;
    },
    permissions,
    permissionMode,
    trusted,
    toolState,
    skills,
    hooks: { runner: hookRunner, skipped: skippedHooks },
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
    shells,
    sandbox,
    readable,
    images: resolved.entry.images,
    modelFor,
    inline,
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
    compactionThreshold: replaceHistory === autoCompact ? compactor.threshold : undefined,
    async compact(focus, compactOptions = {}) {
      if (closed) throw new Error("This agent is closed.");
      if (running) throw new Error("A prompt is running on this agent; compact after its end.");
      running = true;
      try {
        // Nothing to compact is said before any hook runs.
        compactor.preview(history, focus);
        await hookRunner.run(
          "PreCompact",
          { trigger: "manual", custom_instructions: focus ?? "" },
          compactOptions.signal ? { signal: compactOptions.signal } : {},
        );
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
        // The prompts the checkpoints belong to are gone from the history: nothing to rewind to.
        checkpointsOf()?.clear();
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
    async *prompt(
      text: string | ContentBlock[],
      promptOptions: PromptOptions = {},
    ): AsyncGenerator<AgentEvent, AgentResult> {
      if (closed) throw new Error("This agent is closed.");
      if (running) throw new Error("A prompt is already running on this agent; wait for its end.");
      running = true;
      inPrompt = true;
      const top: AgentPath = [];
      const notices = function* (): Generator<AgentEvent> {
        for (const notice of pendingNotices.splice(0)) {
          yield {
            type: "warning",
            code: `hook-${notice.kind}`,
            message: notice.message,
            turn: 0,
            agentPath: top,
          };
        }
      };
      // A hook's `continue: false` stops the run as an interrupt does.
      const stopper = new AbortController();
      let stopReason: string | undefined;
      stopRun = (reason) => {
        stopReason ??= reason;
        stopper.abort();
      };
      const signal = promptOptions.signal
        ? AbortSignal.any([promptOptions.signal, stopper.signal])
        : stopper.signal;
      try {
        const hookContext: string[] = [];
        if (sessionSource) {
          const source = sessionSource;
          sessionSource = undefined;
          const started = await hookRunner.run("SessionStart", { source }, { signal });
          hookContext.push(...started.context);
        }
        // A prompt of blocks (an image with its text) is told to the hook by its text.
        const promptText =
          typeof text === "string"
            ? text
            : text.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
        const submitted = await hookRunner.run("UserPromptSubmit", { prompt: promptText }, { signal });
        yield* notices();
        if (submitted.blocked !== undefined || submitted.stop !== undefined) {
          // The prompt never reaches the model nor the transcript; the reason is for the user.
          const why = submitted.blocked ?? submitted.stop ?? "";
          yield {
            type: "warning",
            code: "hook-blocked",
            message: `A UserPromptSubmit hook blocked this prompt${why ? `: ${why}` : "."}`,
            turn: 0,
            agentPath: top,
          };
          const result: AgentResult = { reason: "end_turn", messages: [...history], usage: emptyUsage() };
          yield { type: "agent-end", ...result, agentPath: top };
          return result;
        }
        hookContext.push(...submitted.context);
        // A new session file is made with the first prompt: a command that sends nothing leaves no file.
        if (!log && logging) log = newLog();
        // A server's changed tool list takes effect here, between prompts, never inside a run.
        const changed = applyMcpChanges();
        if (changed) {
          yield {
            type: "warning",
            code: "mcp-tools-changed",
            message: `${changed}: the new tools apply from this message`,
            turn: 0,
            agentPath: [],
          };
        }
        let messages = appendPrompt(history, text);
        promptIndex = messages.length - 1;
        if (hookContext.length > 0) {
          const last = messages[messages.length - 1] as Message;
          const extra: TextBlock[] = hookContext.map((c) => ({
            type: "text",
            text: `<system-reminder>\nContext from hooks:\n${c}\n</system-reminder>`,
          }));
          messages = [...messages.slice(0, -1), { ...last, content: [...last.content, ...extra] } as Message];
        }
        // A skill's model lasts for the run that loaded it, not for the prompts after.
        clearSkillModel(toolState);
        const chosen = promptOptions.model;
        const skillModels = new Map<string, ModelChoice | undefined>();
        const warnings: AgentEvent[] = [];
        let earlierUsage = emptyUsage();
        for (let continuation = 0; ; continuation++) {
          const runOptions: RunAgentOptions = {
            provider: chosen?.provider ?? resolved.provider,
            model: chosen?.model ?? resolved.model,
            system: context.system,
            tools: runTools,
            messages,
            maxTurns: promptOptions.maxTurns ?? maxTurns,
            maxTokens: maxTokensFor(
              promptOptions.maxTokens ??
                (chosen && options.maxTokens === undefined
                  ? Math.min(chosen.maxOutputTokens, 32_000)
                  : defaultMaxTokens),
            ),
            ...(thinking !== undefined ? { thinkingBudget: thinking } : {}),
            selectModel: (state) => {
              const spec = skillModel(state);
              if (spec === undefined) return undefined;
              if (!skillModels.has(spec)) {
                try {
                  skillModels.set(spec, modelFor(spec));
                } catch (error) {
                  skillModels.set(spec, undefined);
                  warnings.push({
                    type: "warning",
                    turn: 0,
                    agentPath: [],
                    code: "skill_model",
                    message: `The skill's model ${JSON.stringify(spec)} cannot be used (${(error as Error).message}); the session's model goes on.`,
                  });
                }
              }
              return skillModels.get(spec);
            },
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
            signal,
            ...(promptOptions.liveInput !== undefined ? { liveInput: promptOptions.liveInput } : {}),
          };
          const run = runAgent(runOptions);
          let result: AgentResult | undefined;
          let endEvent: AgentEvent | undefined;
          for (;;) {
            const next = await run.next();
            yield* warnings.splice(0);
            if (next.done) {
              history = next.value.messages;
              result = next.value;
              break;
            }
            const event = next.value;
            if (event.type === "history-replaced") {
              if (event.agentPath.length === 0) {
                checkpointsOf()?.clear();
                promptIndex = undefined;
              }
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
            yield* notices();
            // The top-level agent-end is held until the Stop hooks have had their say.
            if (event.type === "agent-end" && event.agentPath.length === 0) endEvent = event;
            else yield event;
          }
          yield* notices();
          if (stopReason !== undefined) {
            yield {
              type: "warning",
              code: "hook-stopped",
              message: `A hook stopped the agent${stopReason ? `: ${stopReason}` : "."}`,
              turn: 0,
              agentPath: top,
            };
          }
          const stoppable = result.reason === "end_turn" && stopReason === undefined && !signal.aborted;
          if (stoppable && hookRunner.has("Stop") && continuation < MAX_STOP_CONTINUATIONS) {
            const stop = await hookRunner.run("Stop", { stop_hook_active: continuation > 0 }, { signal });
            yield* notices();
            if (stop.blocked !== undefined && stop.stop === undefined) {
              // The hook keeps the agent going: its reason is the next instruction.
              earlierUsage = addUsage(earlierUsage, result.usage);
              messages = appendPrompt(history, `Stop hook feedback:\n${stop.blocked}`);
              continue;
            }
          }
          // The usage of the runs a Stop hook asked for counts in the prompt's result.
          const total: AgentResult = { ...result, usage: addUsage(earlierUsage, result.usage) };
          if (endEvent) yield { ...endEvent, usage: total.usage } as AgentEvent;
          return total;
        }
      } finally {
        clearSkillModel(toolState);
        running = false;
        promptIndex = undefined;
        inPrompt = false;
        stopRun = undefined;
        for (const notice of pendingNotices.splice(0)) warn(notice.message);
      }
    },
    expandSlash(line) {
      const slash = parseSlash(line.trim());
      if (!slash) return { kind: "none" };
      const mcpPrompt = mcp?.servers.prompts.find((p) => p.name === slash.name);
      if (mcpPrompt) {
        return {
          kind: "mcp-prompt",
          name: mcpPrompt.name,
          expand: (signal) => mcpPrompt.expand(slash.args, signal),
        };
      }
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
    summarize: (block) => summarizeCall(byName.get(block.name), block),
    rewindPoints() {
      return rewindPointsOf(history);
    },
    rewind(toPromptIndex, rewindOptions = {}) {
      if (closed) throw new Error("This agent is closed.");
      if (running) throw new Error("A prompt is running on this agent; rewind after its end.");
      if (!rewindPointsOf(history).some((p) => p.index === toPromptIndex)) {
        throw new Error(`No user prompt at index ${toPromptIndex} of the conversation.`);
      }
      log?.appendEntry({ type: "rewind", keep: toPromptIndex });
      history = history.slice(0, toPromptIndex);
      used = undefined;
      // Going back is a sanctioned change of the history: the next request starts a new prefix epoch (the cache
      // still reads the part kept), not a "broken prefix"; the first prompt's instructions stay unless it went.
      pendingEpoch = {
        reason: "rewound to an earlier prompt",
        ...(toPromptIndex > 0 ? { keepReminders: true } : {}),
      };
      const store = checkpointsOf();
      if (rewindOptions.restoreFiles)
        return store?.restoreFrom(toPromptIndex) ?? { restored: [], notRestored: [] };
      store?.dropFrom(toPromptIndex);
      return { restored: [], notRestored: [] };
    },
    async clear() {
      if (sessionSource === undefined) await hookRunner.run("SessionEnd", { reason: "clear" });
      sessionSource = "clear";
      sessionId = randomUUID();
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
      logStart = undefined;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (sessionSource === undefined) await hookRunner.run("SessionEnd", { reason: "other" });
      log?.close();
      await shells.killAll();
      await dumping?.flush();
      await mcp?.servers.close();
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

/**
 * The folders of the user's and the shipped skills (real paths), readable by Read, Grep and Glob so the model can
 * open the `references/` and `scripts/` their instructions list; project skills are in the workspace already.
 */
async function skillFolders(catalog: DiscoverResult): Promise<Record<string, string>> {
  const folders: Record<string, string> = {};
  for (const skill of catalog.skills) {
    if (skill.source === "project") continue;
    const real = await realpath(skill.dir).catch(() => undefined);
    if (real) folders[real] = `the ${skill.name} skill's folder (read-only)`;
  }
  return folders;
}
