import { randomUUID } from "node:crypto";
import { type Context, createContext, type GitSnapshot, takeGitSnapshot } from "../context/index.js";
import { loadOutputStyles, renderOutputStyle } from "../context/output-style.js";
import { type HookRunner, withPostToolHooks } from "../hooks/index.js";
import type { Tool } from "../loop/tool.js";
import { definitionsOf } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { renderMcpInstructions } from "../mcp/mcp-instructions.js";
import type { TextBlock } from "../messages/index.js";
import { SessionLog } from "../session/index.js";
import { renderSkillsList } from "../skills/index.js";
import { getReadTracker } from "../tools/read-tracker.js";
import { Workspace } from "../tools/workspace.js";
import { Questions } from "./asker.js";
import { backgroundShellsCapability } from "./capabilities/background-shells.js";
import { builtinToolsCapability } from "./capabilities/builtin-tools.js";
import { compactionStep } from "./capabilities/compaction.js";
import { createHarnessHookRunner, HookNotices, hookJudge, loadActiveHooks } from "./capabilities/hooks.js";
import { mcpCapability } from "./capabilities/mcp.js";
import { planModeCapability } from "./capabilities/plan-mode.js";
import { sandboxCapability } from "./capabilities/sandbox.js";
import { skillsCapability } from "./capabilities/skills.js";
import { createSpawn, subagentsCapability } from "./capabilities/subagents.js";
import { todoCapability } from "./capabilities/todo.js";
import { toolSearchShare, withToolSearch } from "./capabilities/tool-search.js";
import { webCapability } from "./capabilities/web.js";
import { CapabilityList } from "./capability-list.js";
import type { CodingAgent, CodingAgentOptions } from "./coding-agent.js";
import { CostMeter } from "./cost-meter.js";
import { HarnessAgent, type HarnessParts } from "./harness-agent.js";
import { hookAgent } from "./hook-agent.js";
import { inlineCapabilities } from "./inline-capabilities.js";
import { type ModelSetup, setUpModels } from "./model-setup.js";
import { setUpPermissions } from "./permission-setup.js";
import { PromptCheckpoints } from "./prompt-checkpoints.js";
import { findSessionToResume, releaseResumed, resumeConversation } from "./session-setup.js";
import { sessionsDir } from "./sessions-dir.js";
import { setUpWorkspace, type WorkspaceSetup } from "./workspace-setup.js";

export { DEFAULT_MODEL, defaultModel } from "./model-setup.js";

const DEFAULT_MAX_TURNS = 50;

/**
 * Assembles the mitsu coding agent for a workspace — the composition root, in five steps: settings and trust →
 * provider → the list of capabilities (sandbox, background shells, built-in tools, web tools, skills, sub-agents,
 * todo, the embedder's, the enabled plugins', MCP), started concurrently → context → the loop, behind the agent's
 * `prompt`.
 * Throws when the model spec or a session file to resume is unusable (the message says which and why).
 */
export async function createCodingAgent(options: CodingAgentOptions): Promise<CodingAgent> {
  const questions = Questions.from(options.asker, {
    ask: options.ask,
    askTrust: options.askTrust,
    approveMcp: options.mcp ? options.mcp.approve : undefined,
    approveHooks: options.approveHooks,
  });
  const setup = await setUpWorkspace(options, questions);
  const models = await setUpModels(options, setup);
  // A model the catalog does not know is named at start-up (a typo otherwise shows first as a 404).
  for (const warning of models.resolved.warnings ?? []) setup.warn(warning);
  const { cwd, home, warn } = setup;
  // A new session's system prompt holds a git snapshot: its git processes start now and run while the rest is
  // assembled (a resumed session sends its old system prompt again and takes none).
  const sessionChoice = options.session ?? {};
  const gitSnapshot: Promise<GitSnapshot> | undefined =
    sessionChoice.resume !== undefined || sessionChoice.continue
      ? undefined
      : takeGitSnapshot(cwd, { env: setup.scrubbed, secretEnv: setup.secretEnv });

  const late: Late = { tools: [] };
  const sandbox = sandboxCapability(setup.settings.sandbox, options.sandbox, setup);
  const shells = backgroundShellsCapability();
  // What `@file` in a command's or skill's text may read: what Read may (set once the skills have started).
  let readable = new Workspace([cwd], {}, setup.folders);
  const inline = (run: Parameters<typeof inlineCapabilities>[3]) =>
    inlineCapabilities(late.tools, late.permissions?.permissions ?? failEarly(), readable, run);
  const skills = skillsCapability(setup.skills, inline);
  const mcp = mcpCapability(
    options.mcp,
    setup,
    questions,
    toolSearchShare(setup.env) !== undefined,
    () => late.hooks,
  );
  const builtin = new CapabilityList([
    sandbox,
    shells,
    builtinToolsCapability({
      setup,
      shells: shells.shells,
      sandbox: sandbox.options,
      readOnlyRoots: () => skills.readOnlyRoots,
      permissions: () => late.permissions?.permissions ?? failEarly(),
      files: options.files,
      terminal: options.terminal,
    }),
    webCapability(models),
    skills,
    subagentsCapability(setup.agents, () => late.tools.map((t) => t.name)),
    todoCapability(),
    planModeCapability({
      questions,
      mode: setup.permissionMode,
      permissions: () => late.permissions?.permissions,
    }),
  ]);
  // The embedder's capabilities come after the built-in ones, then the plugins' (no tools of their own: their
  // parts went to the loaders); MCP's tools come last, in their fixed order.
  const later = new CapabilityList([
    ...(options.capabilities ?? []),
    ...setup.pluginCapabilities,
    withToolSearch(mcp, models.resolved.entry.contextWindow, setup.env),
  ]);
  const capabilities = new CapabilityList([...builtin.list, ...later.list]);
  // Every start runs now, concurrently (MCP servers connect while the rest is assembled); all are awaited before
  // the agent is handed out, so `tools` is complete and stable from the first request.
  const starting = capabilities.start({ cwd, home, env: setup.scrubbed, trusted: setup.trusted, warn });
  starting.catch(() => {});
  try {
    const activeHooks = await loadActiveHooks(setup, questions);
    await starting;
    readable = new Workspace([cwd, ...Object.keys(skills.readOnlyRoots)], {}, setup.folders);
    return await assemble({
      questions,
      sandboxAutoAllow: sandbox.autoAllow,
      options,
      setup,
      models,
      capabilities,
      builtin,
      later,
      late,
      activeHooks,
      gitSnapshot,
      mcp: () => mcp.project,
      shells: shells.shells,
      sandbox: sandbox.options,
      readable,
      inline,
    });
  } catch (error) {
    await starting.catch(() => {});
    await capabilities.close(warn);
    await models.flushDump?.();
    throw error;
  }
}

/** A part asked for before the permission checker exists: a bug of the harness's order. */
function failEarly(): never {
  throw new Error("The permission checker was asked for before it was made.");
}

/** What is made during assembly that the capabilities, made before it, read when called. */
interface Late {
  permissions?: ReturnType<typeof setUpPermissions>;
  tools: Tool<never>[];
  hooks?: HookRunner;
}

interface Assembly {
  questions: Questions;
  sandboxAutoAllow: boolean;
  options: CodingAgentOptions;
  setup: WorkspaceSetup;
  models: ModelSetup;
  capabilities: CapabilityList;
  /** The built-in capabilities, whose tools an embedder's tool of the same name replaces. */
  builtin: CapabilityList;
  later: CapabilityList;
  late: Late;
  activeHooks: Awaited<ReturnType<typeof loadActiveHooks>>;
  gitSnapshot: Promise<GitSnapshot> | undefined;
  mcp: HarnessParts["mcp"];
  shells: HarnessParts["shells"];
  sandbox: HarnessParts["sandbox"];
  readable: Workspace;
  inline: HarnessParts["inline"];
}

/**
 * The capabilities started: their tools in the fixed order, the hooks and the permission checker over them, the
 * context, and the conversation (a new session log, or a resumed one).
 */
async function assemble(a: Assembly): Promise<CodingAgent> {
  const { options, setup, models, capabilities } = a;
  const { cwd, warn } = setup;
  const { resolved } = models;
  const rules = capabilities.rules();
  // `builtinTools` (Claude Code's `--tools`): mitsu's own tools not named are disallowed as a whole. MCP servers'
  // tools, the embedder's `tools` and ToolSearch (the way to deferred MCP tools) are not mitsu's own here.
  const chosen = options.builtinTools;
  const unchosen = chosen
    ? capabilities
        .tools()
        .map((tool) => tool.name)
        .filter((name) => !name.startsWith("mcp__") && name !== "ToolSearch" && !chosen.includes(name))
    : [];
  const disallowedTools = [...(options.disallowedTools ?? []), ...rules.deny, ...unchosen];
  // A tool denied as a whole (`--disallowedTools Bash`) is not offered at all: the model cannot call what it
  // is not told of, and the request does not carry a definition it must not use.
  const removed = new Set(disallowedTools.filter((rule) => !rule.includes("(")));
  const assembleTools = (): Tool<never>[] => {
    // An embedder's tool of a built-in's name (its own Task) takes that tool's place.
    const laterTools = [...(options.tools ?? []), ...a.later.tools()];
    const builtin = a.builtin.tools().filter((t) => !laterTools.some((e) => e.name === t.name));
    return [...builtin, ...laterTools].filter((tool) => !removed.has(tool.name));
  };
  const tools = assembleTools();
  a.late.tools = tools;
  let agent: HarnessAgent | undefined;
  let sessionId: string = options.session?.id ?? randomUUID();
  const notices = new HookNotices(warn, options.verboseHooks === true);
  const hookRunner = createHarnessHookRunner({
    setup,
    hooks: [...a.activeHooks.hooks, ...setup.contributed.hooks],
    callbacks: capabilities.hooks(options.hooks),
    notices,
    permissionMode: () => a.late.permissions?.permissions.currentMode() ?? setup.permissionMode.mode,
    session: () => ({ id: agent?.hookSessionId ?? sessionId, path: agent?.hookTranscriptPath ?? "" }),
    judge: hookJudge(models),
    agentJudge: hookAgent(
      models,
      () => tools,
      () => a.late.permissions?.permissions,
    ),
  });
  a.late.hooks = hookRunner;
  const onHookStop = (reason: string) => agent?.stopRun?.(reason);
  const permissions = setUpPermissions({
    setup,
    questions: a.questions,
    hooks: hookRunner,
    allowedTools: [...(options.allowedTools ?? []), ...rules.allow],
    disallowedTools,
    sandboxAutoAllow: a.sandboxAutoAllow,
    onHookStop,
  });
  a.late.permissions = permissions;
  const checkpoints = new PromptCheckpoints(() => agent?.log, warn);
  const wrapForRuns = (list: readonly Tool<never>[]) =>
    withPostToolHooks(checkpoints.wrap(list, cwd), hookRunner, onHookStop);
  const runTools = wrapForRuns(tools);
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const defaultMaxTokens = options.maxTokens ?? Math.min(resolved.entry.maxOutputTokens, 32_000);
  const spawn = createSpawn({
    setup,
    models,
    options,
    tools: runTools,
    canUseTool: permissions.canUseTool,
    hooks: hookRunner,
    maxTurns,
    log: () => agent?.log,
    journal: options.journal,
  });
  const toolState = new ToolState();
  // The output style (settings' `outputStyle`) and the MCP servers' `instructions`, as Claude Code sends them:
  // sections at the end of the system prompt, fixed for the session.
  const outputStyles = await loadOutputStyles({
    cwd: setup.cwd,
    home: setup.home,
    plugins: setup.contributed.outputStyles,
    chosen: setup.settings.outputStyle ?? null,
  });
  for (const warning of outputStyles.warnings) warn(warning);
  const systemExtra = [
    outputStyles.active ? renderOutputStyle(outputStyles.active) : undefined,
    renderMcpInstructions(a.mcp()?.servers.instructions ?? []),
    options.appendSystemPrompt,
  ]
    .filter((text) => text !== undefined && text !== "")
    .join("\n\n");
  // A style without `keep-coding-instructions` takes the place of mitsu's coding instructions (Claude Code's
  // default for a custom style); fixed for the session, as the whole system prompt is.
  const codingInstructions = outputStyles.active?.keepCodingInstructions ?? true;
  const makeContext = contextFactory(a, tools, toolState, { systemExtra, codingInstructions });

  // The session to continue is locked and read now: its system prompt is the one to send again.
  const sessionChoice = options.session ?? {};
  const dir = sessionChoice.dir ?? sessionsDir(setup.where);
  const toResume = findSessionToResume(sessionChoice, dir, setup.where, warn);
  const header = toResume?.loaded.header;
  let context: Context;
  try {
    context = await makeContext(
      header?.system ? { system: header.system, createdAt: new Date(header.createdAt) } : undefined,
    );
  } catch (error) {
    releaseResumed(toResume);
    throw error;
  }
  const logging = sessionChoice.log !== false;
  const conversation = resumeConversation(toResume, logging);
  if (conversation.log) sessionId = conversation.log.header.id;
  const compaction = compactionStep(options, models, {
    maxTokens: defaultMaxTokens,
    context: () => agent?.context ?? context,
    hooks: hookRunner,
    warn,
  });
  agent = new HarnessAgent({
    options,
    setup,
    models,
    capabilities,
    mcp: a.mcp,
    shells: a.shells,
    sandbox: a.sandbox,
    tools,
    runTools,
    assembleTools,
    wrapForRuns,
    permissions: permissions.permissions,
    canUseTool: permissions.canUseTool,
    denials: permissions.denials,
    hookRunner,
    skippedHooks: a.activeHooks.skipped,
    notices,
    spawn,
    agents: setup.agents,
    readable: a.readable,
    inline: a.inline,
    toolState,
    checkpoints,
    meter: new CostMeter(
      resolved.entry.price,
      options.cacheTtl ?? "5m",
      toResume ? { usage: toResume.loaded.usage, calls: toResume.loaded.modelCalls } : undefined,
    ),
    compactor: compaction.compactor,
    replaceHistory: compaction.replaceHistory,
    autoCompacting: compaction.automatic,
    context,
    makeContext,
    history: conversation.history,
    log: conversation.log,
    logging,
    sessionId,
    resumed: toResume !== undefined,
    newLog: (id, system, now) =>
      SessionLog.create(dir, { id, cwd, model: `${resolved.provider.api}:${resolved.model}`, system, now }),
    logPath: (id, now) => SessionLog.pathFor(dir, id, now),
    maxTurns,
    defaultMaxTokens,
  });
  // Claude Code's Setup event (`--init`, `--init-only`, `--maintenance`): once, at start-up, before the session's
  // first prompt; what the hooks add for the model goes with that prompt.
  if (options.setupHooks) {
    const setupRun = await hookRunner.run("Setup", { trigger: options.setupHooks });
    agent.setupContext.push(...setupRun.context);
  }
  return agent;
}

/**
 * How the agent makes a context: for the conversation (a resumed one sends its old system prompt again), for
 * `/clear`, for a preview. Only the first uses the git snapshot taken at start-up: a later one is a new start.
 */
function contextFactory(
  a: Assembly,
  tools: readonly Tool<never>[],
  toolState: ToolState,
  system: {
    /** What follows mitsu's own system prompt: the output style, the MCP servers' instructions, `appendSystemPrompt`. */
    systemExtra: string;
    /** False: mitsu's software-engineering instructions are left out (an output style replaces them). */
    codingInstructions: boolean;
  },
) {
  const { systemExtra, codingInstructions } = system;
  const { options, setup, models, capabilities } = a;
  let snapshot = a.gitSnapshot;
  return async (resumed?: { system: TextBlock[]; createdAt?: Date }): Promise<Context> => {
    const early = resumed ? undefined : snapshot;
    const context = await createContext({
      cwd: setup.cwd,
      // The folders as they are now: one added mid-session is named from the next new context (/clear, a new
      // session), never in the running one's system prompt, which is the cached prefix.
      additionalFolders: setup.folders.list(),
      home: setup.home,
      model: models.resolved.model,
      tools: definitionsOf(tools),
      skills: () => renderSkillsList(setup.skills.skills) || undefined,
      trackedFiles: () => getReadTracker(toolState).entries(),
      sources: capabilities.reminders(),
      ...(systemExtra ? { extra: systemExtra } : {}),
      codingInstructions,
      ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
      env: setup.env,
      git: { env: setup.scrubbed, secretEnv: setup.secretEnv },
      ...(early ? { gitSnapshot: early } : {}),
      ...(resumed
        ? { system: resumed.system }
        : options.systemPrompt !== undefined
          ? {
              system: [options.systemPrompt, options.appendSystemPrompt]
                .filter((text): text is string => text !== undefined && text !== "")
                .map((text) => ({ type: "text" as const, text })),
            }
          : {}),
      ...(resumed?.createdAt ? { systemDate: resumed.createdAt } : {}),
    });
    snapshot = undefined;
    return context;
  };
}
