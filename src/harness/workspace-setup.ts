import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { type AgentDefinitions, formatAgentWarning } from "../agents/index.js";
import { prepareProjectDir } from "../context/index.js";
import { FolderSet } from "../fs/folder-set.js";
import type { LoadedHooks } from "../hooks/index.js";
import type { LoadedSettings, PermissionMode, PluginSettings } from "../permissions/index.js";
import type { PluginContributions } from "../plugins/load-plugins.js";
import { childEnv } from "../process/child-env.js";
import { configuredKeyEnvNames, loadModelsConfig } from "../providers/models-config.js";
import type { DiscoverResult } from "../skills/index.js";
import type { Questions } from "./asker.js";
import { type Capability, contributionsOf } from "./capability.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import { loadPluginsFor } from "./plugin-capability.js";
import { loadWorkspace, type TrustQuestion } from "./workspace-trust.js";

/** The workspace as the harness starts from it: its settings under workspace trust, the environment, the folders. */
export interface WorkspaceSetup {
  cwd: string;
  home: string;
  where: { cwd: string; home: string };
  warn: (message: string) => void;
  settings: LoadedSettings;
  skills: DiscoverResult;
  agents: AgentDefinitions;
  trusted: boolean;
  trustedBy: string | undefined;
  /** The hooks read for the trust question, when the folder stayed untrusted. */
  workspaceHooks: LoadedHooks | undefined;
  /** The process's environment with the settings' `env` over it. */
  env: Record<string, string | undefined>;
  models: ReturnType<typeof loadModelsConfig>;
  /** The variables no child process gets (the keys models.json names). */
  secretEnv: string[];
  /** The environment of every child process. */
  scrubbed: NodeJS.ProcessEnv;
  permissionMode: { mode: PermissionMode; origin: string };
  /**
   * The workspace folders besides `cwd`, live: the start-up ones (real paths taken now), then what a hook's or an
   * SDK answer's `addDirectories`, or `/add-dir`, adds. The permission checker, the file tools and the sandbox
   * read it at each call.
   */
  folders: FolderSet;
  /** The model's persistent memory folder. */
  memory: string;
  /**
   * What the capabilities add to the loaders (`Capability.contributes`: the enabled plugins' and the embedder's):
   * folders for the skill, agent and output-style loaders, command hooks, MCP servers.
   */
  contributed: PluginContributions;
  /** The installed and enabled plugins (and `pluginDirs`), one capability each. */
  pluginCapabilities: Capability[];
}

/**
 * The first step of the harness: settings and trust. What the workspace's own files grant counts only once the
 * user trusts it (see `loadWorkspace`); the command line wins over every settings file.
 */
export async function setUpWorkspace(
  options: CodingAgentOptions,
  questions: Questions,
): Promise<WorkspaceSetup> {
  const cwd = resolve(options.cwd);
  const home = options.home ?? homedir();
  const where = { cwd, home };
  const warn = (message: string) => options.onWarning?.(message);
  const askTrust = questions.asFunction("trust", (question: TrustQuestion) => ({ kind: "trust", question }));
  // Installed and enabled plugins (and --plugin-dir ones), once the settings say which: capabilities whose folders,
  // hooks and MCP servers the loaders take in, beside what the embedder's capabilities contribute.
  let pluginCapabilities: Capability[] = [];
  let contributed = contributionsOf(options.capabilities ?? []);
  const contributions = async (pluginSettings: PluginSettings) => {
    const plugins = await loadPluginsFor(options, where, pluginSettings);
    for (const warning of plugins.warnings) warn(warning);
    pluginCapabilities = plugins.capabilities;
    contributed = contributionsOf([...(options.capabilities ?? []), ...pluginCapabilities]);
    return contributed;
  };
  const loaded = await loadWorkspace({
    cwd,
    home,
    flag: options.trust === true,
    ...(askTrust ? { ask: askTrust } : {}),
    ...(options.settingSources ? { settingSources: options.settingSources } : {}),
    notice: warn,
    contributions,
  });
  const { settings, catalog: skills } = loaded;
  // Settings' `env` is applied over the process's, as Claude Code does (a project's only in a trusted folder, and
  // never its start-up variables: see loadSettings; the refused keys are among `settings.warnings`).
  const env = { ...(options.env ?? process.env), ...settings.env };
  const models = loadModelsConfig(home);
  // Keys named in models.json are secrets for every child process, whichever provider this agent uses.
  const secretEnv = configuredKeyEnvNames(models);
  const permissionMode = options.permissionMode
    ? { mode: options.permissionMode, origin: "--permission-mode" }
    : settings.defaultMode
      ? { mode: settings.defaultMode, origin: `permissions.defaultMode in ${settings.defaultModeSource}` }
      : { mode: "default" as const, origin: "the default" };
  for (const warning of settings.warnings) warn(warning);
  const folders = new FolderSet(cwd, home);
  for (const dir of [...settings.additionalDirectories, ...(options.addDirs ?? [])]) {
    const added = await folders.addAtStart(dir);
    if (added.warning) warn(`--add-dir / additionalDirectories: ${added.warning}`);
  }
  // Notices about files that did load go to --verbose (and `mitsu skills` / `mitsu agents`), not every start.
  const shown = (w: { skipped: boolean }) => w.skipped || options.verboseNotices === true;
  for (const warning of skills.warnings.filter(shown)) warn(`${warning.path}: ${warning.message}`);
  for (const warning of loaded.agents.warnings.filter(shown)) warn(formatAgentWarning(warning));
  return {
    cwd,
    home,
    where,
    warn,
    settings,
    skills,
    agents: withCodeAgents(loaded.agents, options.agents ?? []),
    trusted: loaded.trusted,
    trustedBy: loaded.trustedBy,
    workspaceHooks: loaded.hooks,
    env,
    models,
    secretEnv,
    scrubbed: childEnv(env, { drop: secretEnv }),
    permissionMode,
    folders,
    // The model's persistent memory folder, which the system prompt tells it to Read and Write; created private
    // (0700), with the memory of the project's old, non-unique folder carried over the first time.
    memory: join(prepareProjectDir(where), "memory"),
    contributed,
    pluginCapabilities,
  };
}

/** Agents defined in code beat the files' (an embedder's choice is the most specific); sorted by name. */
function withCodeAgents(loaded: AgentDefinitions, codeAgents: NonNullable<CodingAgentOptions["agents"]>) {
  return {
    agents: [...loaded.agents.filter((a) => !codeAgents.some((c) => c.name === a.name)), ...codeAgents].sort(
      (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    ),
    warnings: loaded.warnings,
    ignored: loaded.ignored,
  };
}
