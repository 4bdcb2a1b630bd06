import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type Context, createContext, prepareProjectDir } from "../context/index.js";
import type { CanUseTool } from "../loop/permission.js";
import { type Tool, toToolDefinition } from "../loop/tool.js";
import type { TextBlock, ToolUseBlock } from "../messages/index.js";
import { createPermissionChecker, type PermissionRequest } from "../permissions/index.js";
import { childEnv } from "../process/child-env.js";
import { resolveModel } from "../providers/model-registry.js";
import {
  configuredHeaderNames,
  configuredKeyEnvNames,
  loadModelsConfig,
} from "../providers/models-config.js";
import type { Provider } from "../providers/provider.js";
import { withXmlToolProtocol } from "../providers/xml/index.js";
import {
  activeAllowedTools,
  createSkillTool,
  type DiscoverResult,
  renderSkillsList,
} from "../skills/index.js";
import { createBuiltinTools } from "../tools/create-builtin-tools.js";
import { getReadTracker } from "../tools/read-tracker.js";
import type { CliOptions, PermissionMode } from "./cli-options.js";
import { createDumpingFetch } from "./dumping-fetch.js";
import { loadWorkspace, type TrustQuestion } from "./workspace-trust.js";

export interface SessionConfig {
  cwd: string;
  home?: string;
  env?: NodeJS.ProcessEnv;
  model: string;
  /** `--permission-mode`, when given: it wins over every settings file. */
  permissionMode?: PermissionMode | undefined;
  /** `--trust`: the project's own files may grant permissions in this run. */
  trust?: boolean;
  /** Asks whether to trust the folder when its files grant something (interactive mode). */
  askTrust?: (question: TrustQuestion) => Promise<boolean>;
  allowedTools?: string[];
  disallowedTools?: string[];
  addDirs?: string[];
  toolProtocol?: "native" | "xml";
  dumpRequests?: string;
  appendSystemPrompt?: string;
  cacheTtl?: "5m" | "1h";
  /** The terminal's prompt for "ask" decisions; without it an ask is a denial (print mode). */
  ask?: (request: PermissionRequest) => Promise<"allow_once" | "allow_always" | "deny">;
  onWarning?: (message: string) => void;
  fetch?: typeof fetch;
  /** A resumed session's system prompt and when it was built: its requests keep the same prefix. */
  resumed?: { system: TextBlock[]; createdAt: Date };
}

/** Everything one mitsu session needs: the provider, the stable system and tools, the hooks for the loop. */
export interface Session {
  provider: Provider;
  /** The provider's name as the model spec gives it (`anthropic`, `openai`, a models.json provider). */
  providerName: string;
  /** The model id sent to the provider (without the `provider:` prefix). */
  model: string;
  maxOutputTokens: number;
  tools: Tool<never>[];
  /** Replaced by `renew()`; read it at each run, do not keep it. */
  context: Context;
  canUseTool: CanUseTool;
  /** The permission mode the session started in, and where it came from (`--permission-mode`, a settings file, the default). */
  permissionMode: { mode: PermissionMode; origin: string };
  /** Whether the project's own files may grant permissions (workspace trust). */
  trusted: boolean;
  toolState: Map<string, unknown>;
  catalog: DiscoverResult;
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
}

/** The session the command line asks for, in `where` (print and interactive mode build theirs the same way). */
export function sessionConfigFor(
  options: CliOptions,
  where: { cwd: string; home: string; env: NodeJS.ProcessEnv },
  extra: Pick<SessionConfig, "ask" | "askTrust" | "onWarning" | "resumed">,
): SessionConfig {
  return {
    cwd: where.cwd,
    home: where.home,
    env: where.env,
    model: options.model,
    permissionMode: options.permissionMode,
    trust: options.trust,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    addDirs: options.addDirs,
    toolProtocol: options.toolProtocol,
    ...(options.dumpRequests ? { dumpRequests: options.dumpRequests } : {}),
    ...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    cacheTtl: options.cacheTtl,
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

  const { settings, catalog, trusted } = await loadWorkspace({
    cwd,
    home,
    flag: config.trust === true,
    ...(config.askTrust ? { ask: config.askTrust } : {}),
    ...(config.onWarning ? { notice: config.onWarning } : {}),
  });
  // The command line wins over every settings file.
  const permissionMode = config.permissionMode
    ? { mode: config.permissionMode, origin: "--permission-mode" }
    : settings.defaultMode
      ? { mode: settings.defaultMode, origin: `permissions.defaultMode in ${settings.defaultModeSource}` }
      : { mode: "default" as const, origin: "the default" };
  for (const warning of catalog.warnings) config.onWarning?.(`${warning.path}: ${warning.message}`);

  const additionalRoots = [...settings.additionalDirectories, ...(config.addDirs ?? [])];
  // The model's persistent memory folder, which the system prompt tells it to Read and Write.
  // Created private (0700), with the memory of the project's old, non-unique folder carried over the first time.
  const memory = join(prepareProjectDir({ cwd, home }), "memory");
  const tools: Tool<never>[] = [
    ...(createBuiltinTools({
      cwd,
      additionalRoots,
      env: scrubbed,
      secretEnv,
      memoryDir: memory,
      // Read deny rules also keep Grep and Glob out of what they cover.
      searchExcludes: (root) => canUseTool.readExcludes(root),
    }) as Tool<never>[]),
    createSkillTool(() => catalog.skills) as unknown as Tool<never>,
  ];
  const toolState = new Map<string, unknown>();
  const canUseTool = createPermissionChecker({
    rules: settings.rules,
    mode: permissionMode.mode,
    additionalDirectories: additionalRoots,
    ownFolders: [memory],
    home,
    preApproved: activeAllowedTools,
    allowedTools: config.allowedTools ?? [],
    disallowedTools: config.disallowedTools ?? [],
    cwd,
    ...(config.ask ? { ask: config.ask } : {}),
  });

  const makeContext = (resumed?: SessionConfig["resumed"]) =>
    createContext({
      cwd,
      home,
      model: resolved.model,
      tools: tools.map((t) => toToolDefinition(t)),
      skills: () => renderSkillsList(catalog.skills) || undefined,
      trackedFiles: () => getReadTracker(toolState).entries(),
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
    provider,
    providerName: resolved.entry.provider,
    model: resolved.model,
    maxOutputTokens: resolved.entry.maxOutputTokens,
    tools,
    context: await makeContext(config.resumed),
    canUseTool,
    permissionMode,
    trusted,
    toolState,
    catalog,
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
    async renew() {
      session.context = await makeContext();
      toolState.clear();
    },
  };
  return session;
}
