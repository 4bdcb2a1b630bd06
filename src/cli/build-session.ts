import { randomBytes } from "node:crypto";
import { realpath } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Context, createContext, prepareProjectDir, todoReminderSource } from "../context/index.js";
import type { CanUseTool } from "../loop/permission.js";
import { summarizeCall } from "../loop/summarize-call.js";
import { type Tool, toToolDefinition } from "../loop/tool.js";
import type { TextBlock, ToolUseBlock } from "../messages/index.js";
import {
  createPermissionChecker,
  loadSettings,
  type PermissionRequest,
  type SandboxSettings,
  sandboxAutoAllows,
} from "../permissions/index.js";
import { childEnv } from "../process/child-env.js";
import { completeText } from "../providers/complete-text.js";
import { helperModel, resolveModel } from "../providers/model-registry.js";
import {
  configuredHeaderNames,
  configuredKeyEnvNames,
  loadModelsConfig,
} from "../providers/models-config.js";
import type { Provider } from "../providers/provider.js";
import { hasWebSearch, webSearch } from "../providers/web-search.js";
import { withXmlToolProtocol } from "../providers/xml/index.js";
import {
  activeAllowedTools,
  createSkillTool,
  type DiscoverResult,
  discoverSkills,
  type InlineCapabilities,
  renderSkillsList,
} from "../skills/index.js";
import { BackgroundShells } from "../tools/background-shells.js";
import { createBuiltinTools } from "../tools/create-builtin-tools.js";
import { getReadTracker } from "../tools/read-tracker.js";
import { checkSandbox, type SandboxOptions } from "../tools/sandbox.js";
import { Workspace } from "../tools/workspace.js";
import type { CliOptions, PermissionMode } from "./cli-options.js";
import { createDumpingFetch } from "./dumping-fetch.js";
import { inlineCapabilities } from "./inline-capabilities.js";

export interface SessionConfig {
  cwd: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
  model: string;
  permissionMode: PermissionMode;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDirs?: string[];
  toolProtocol?: "native" | "xml";
  dumpRequests?: string;
  appendSystemPrompt?: string;
  cacheTtl?: "5m" | "1h";
  /** `--sandbox`: run Bash commands inside the bubblewrap sandbox (the settings' `sandbox.enabled` also turns it on). */
  sandbox?: boolean;
  /** The terminal's prompt for "ask" decisions; without it an ask is a denial (print mode). */
  ask?: (request: PermissionRequest) => Promise<"allow_once" | "allow_always" | "deny">;
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
  /** A resumed session's system prompt and when it was built: its requests keep the same prefix. */
  resumed?: { system: TextBlock[]; createdAt: Date };
}

/** A model to run a prompt with: its provider, the id sent, and its output limit. */
export interface ModelChoice {
  provider: Provider;
  model: string;
  maxOutputTokens: number;
}

/** Everything one mitsu session needs: the provider, the stable system and tools, the hooks for the loop. */
export interface Session {
  provider: Provider;
  /** The provider's name as the model spec gives it (`anthropic`, `openai`, a models.json provider). */
  providerName: string;
  /** The model id sent to the provider (without the `provider:` prefix). */
  model: string;
  maxOutputTokens: number;
  /** What Read may reach: the workspace folders and the read-only roots (skills' folders). */
  readable: Workspace;
  /** Whether the model takes images (an `@image.png` in a prompt). */
  images: boolean;
  tools: Tool<never>[];
  /** Replaced by `renew()`; read it at each run, do not keep it. */
  context: Context;
  canUseTool: CanUseTool;
  toolState: Map<string, unknown>;
  catalog: DiscoverResult;
  /** Commands the model started with `run_in_background`; stopped by `close()`. */
  shells: BackgroundShells;
  /** How Bash commands are confined, when the sandbox is on. */
  sandbox: SandboxOptions | undefined;
  /**
   * The model a command's or skill's `model` names: `provider:model`, a model id (of the session's provider unless
   * its name says another), or `haiku` / `sonnet` / `opus`; `inherit` (or nothing) is the session's (undefined).
   * Throws a message that names the problem.
   */
  modelFor(spec: string | undefined): ModelChoice | undefined;
  /** `!`command`` and `@file` for a command's or skill's text, for one run (its abort signal and tool state). */
  inline(run: { signal: AbortSignal; state: Map<string, unknown> }): InlineCapabilities;
  /** The short human summary of a call, from the tool's `summarize`. */
  summarize(block: ToolUseBlock): string;
  /**
   * Starts a new conversation in the same session (`/clear`): a fresh context (reminders and prefix checks
   * start over, as for a first message) and empty tool state (files read, active skills). The provider, the
   * tools and the permission rules, including those allowed "always" this session, stay.
   */
  renew(): Promise<void>;
  /**
   * The environment for every child process the session starts (Bash, git, hooks, MCP servers): the user's,
   * without the provider keys, the `apiKeyEnv` variables of models.json and those listed in `MITSU_SECRET_ENV`.
   */
  childEnv: NodeJS.ProcessEnv;
  /** Waits for what the session still writes in the background (the `--dump-requests` response files). */
  flush(): Promise<void>;
  /** The session's end: stops every background shell's process group, then flushes. */
  close(): Promise<void>;
}

/** The session the command line asks for, in `where` (print and interactive mode build theirs the same way). */
export function sessionConfigFor(
  options: CliOptions,
  where: { cwd: string; home: string; env: NodeJS.ProcessEnv },
  extra: Pick<SessionConfig, "ask" | "onWarning" | "resumed">,
): SessionConfig {
  return {
    cwd: where.cwd,
    home: where.home,
    env: where.env,
    model: options.model,
    permissionMode: options.permissionMode,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    addDirs: options.addDirs,
    toolProtocol: options.toolProtocol,
    ...(options.dumpRequests ? { dumpRequests: options.dumpRequests } : {}),
    ...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    cacheTtl: options.cacheTtl,
    ...(options.sandbox ? { sandbox: true } : {}),
    ...extra,
  };
}

/** Assembles a session for a workspace: model, tools (built-in + Skill), permissions, skills, context. */
export async function buildSession(config: SessionConfig): Promise<Session> {
  const cwd = resolve(config.cwd);
  const home = config.home ?? homedir();
  const env = config.env ?? process.env;
  const models = loadModelsConfig(home);
  // Keys named in models.json are secrets for every child, whichever provider this session uses.
  const secretEnv = configuredKeyEnvNames(models);
  const scrubbed = childEnv(env, { drop: secretEnv });
  const dumping = config.dumpRequests
    ? createDumpingFetch(config.dumpRequests, config.fetch ?? fetch, configuredHeaderNames(models))
    : undefined;
  const fetchImpl = dumping ? dumping : (config.fetch ?? fetch);
  const resolved = resolveModel(config.model, env, { home, fetch: fetchImpl });
  const provider = config.toolProtocol === "xml" ? withXmlToolProtocol(resolved.provider) : resolved.provider;

  const settings = await loadSettings({ cwd, home });
  for (const warning of settings.warnings) config.onWarning?.(warning);
  const catalog = await discoverSkills({ cwd, home });
  for (const warning of catalog.warnings) config.onWarning?.(`${warning.path}: ${warning.message}`);

  const additionalRoots = [...settings.additionalDirectories, ...(config.addDirs ?? [])];
  // The model's persistent memory folder, which the system prompt tells it to Read and Write.
  // Created private (0700), with the memory of the project's old, non-unique folder carried over the first time.
  const memory = join(prepareProjectDir({ cwd, home }), "memory");
  const sandboxSettings: SandboxSettings = config.sandbox
    ? { ...settings.sandbox, enabled: true, enabledBy: "cli" }
    : settings.sandbox;
  let sandbox: SandboxOptions | undefined;
  if (sandboxSettings.enabled) {
    sandbox = {
      writableRoots: [cwd, ...additionalRoots],
      allowNetwork: sandboxSettings.allowNetwork === true,
    };
    // Never a silent fallback: without bubblewrap the session does not start.
    await checkSandbox({ ...sandbox, cwd });
  }
  const shells = new BackgroundShells({
    outputDir: join(tmpdir(), `mitsu-shells-${process.pid}-${randomBytes(4).toString("hex")}`),
  });
  // Side calls (WebFetch reading a page, a web search) go to a small model of the same provider, without the
  // XML tool protocol: they use no tools.
  const helper = helperModel(resolved.entry, env);
  const readOnlyRoots = await skillFolders(catalog);
  const tools: Tool<never>[] = [
    ...(createBuiltinTools({
      cwd,
      additionalRoots,
      env: scrubbed,
      secretEnv,
      memoryDir: memory,
      readOnlyRoots,
      shells,
      ...(sandbox ? { sandbox } : {}),
      webFetch: {
        fetch: globalThis.fetch,
        complete: (prompt, signal) =>
          completeText(resolved.provider, helper, prompt, { signal, maxTokens: 4096 }),
      },
      ...(hasWebSearch(resolved.provider)
        ? {
            webSearch: {
              search: (query, options) =>
                webSearch({ provider: resolved.provider, model: helper, query, ...options }),
            },
          }
        : {}),
    }) as Tool<never>[]),
    createSkillTool(() => catalog.skills, {
      // Called at run time, once everything below exists.
      inline: (run) => inlineCapabilities(tools, canUseTool, readable, run),
    }) as unknown as Tool<never>,
  ];
  const toolState = new Map<string, unknown>();
  const canUseTool = createPermissionChecker({
    rules: settings.rules,
    mode:
      config.permissionMode === "default" && settings.defaultMode
        ? settings.defaultMode
        : config.permissionMode,
    additionalDirectories: additionalRoots,
    ownFolders: [memory],
    home,
    preApproved: activeAllowedTools,
    allowedTools: config.allowedTools ?? [],
    disallowedTools: config.disallowedTools ?? [],
    cwd,
    ...(config.ask ? { ask: config.ask } : {}),
    sandboxAutoAllow: sandbox !== undefined && sandboxAutoAllows(sandboxSettings),
  });

  // What `@file` in a command's or skill's text may read: what Read may.
  const readable = new Workspace([cwd, ...additionalRoots, ...Object.keys(readOnlyRoots)]);
  const makeContext = (resumed?: SessionConfig["resumed"]) =>
    createContext({
      cwd,
      home,
      model: resolved.model,
      tools: tools.map((t) => toToolDefinition(t)),
      skills: () => renderSkillsList(catalog.skills) || undefined,
      trackedFiles: () => getReadTracker(toolState).entries(),
      sources: [todoReminderSource()],
      ...(config.appendSystemPrompt ? { extra: config.appendSystemPrompt } : {}),
      ...(config.cacheTtl ? { cacheTtl: config.cacheTtl } : {}),
      // Context warnings (a broken cache prefix) reach the terminal as the loop's `warning` events (run-prompt.ts).
      env,
      git: { env: scrubbed, secretEnv },
      ...(resumed ? { system: resumed.system, systemDate: resumed.createdAt } : {}),
    });

  const byName = new Map(tools.map((t) => [t.name, t]));
  const session: Session = {
    childEnv: scrubbed,
    flush: async () => {
      await dumping?.flush();
    },
    close: async () => {
      await shells.killAll();
      await dumping?.flush();
    },
    shells,
    sandbox,
    images: resolved.entry.images,
    readable,
    modelFor(spec) {
      const wanted = spec?.trim();
      if (!wanted || wanted === "inherit") return undefined;
      const alias = MODEL_ALIASES[wanted];
      // A bare id of the session's own family stays with the session's provider (its base URL, its wire).
      const own = !inferable(wanted) || familyOf(wanted) === familyOf(resolved.model);
      const full = alias ?? (wanted.includes(":") || !own ? wanted : `${resolved.entry.provider}:${wanted}`);
      const other = resolveModel(full, env, { home, fetch: fetchImpl });
      return { provider: other.provider, model: other.model, maxOutputTokens: other.entry.maxOutputTokens };
    },
    inline: (run) => inlineCapabilities(tools, canUseTool, readable, run),
    provider,
    providerName: resolved.entry.provider,
    model: resolved.model,
    maxOutputTokens: resolved.entry.maxOutputTokens,
    tools,
    context: await makeContext(config.resumed),
    canUseTool,
    toolState,
    catalog,
    summarize: (block) => summarizeCall(byName.get(block.name), block),
    async renew() {
      session.context = await makeContext();
      toolState.clear();
    },
  };
  return session;
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

/** Claude Code's model aliases in a command's or skill's `model`. */
const MODEL_ALIASES: Record<string, string> = {
  haiku: "anthropic:claude-haiku-4-5",
  sonnet: "anthropic:claude-sonnet-5-5",
  opus: "anthropic:claude-opus-5-5",
};

/** A bare model id whose name says its provider (the registry infers it). */
function inferable(model: string): boolean {
  return familyOf(model) !== undefined;
}

function familyOf(model: string): string | undefined {
  if (model.startsWith("claude-")) return "anthropic";
  if (model.startsWith("gemini-")) return "gemini";
  if (/^(gpt-|o\d|chatgpt-|codex-)/.test(model)) return "openai";
  return undefined;
}
