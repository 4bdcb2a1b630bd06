import { type AgentDefinitions, loadAgentDefinitions } from "../agents/index.js";
import { type LoadedHooks, loadHooks } from "../hooks/index.js";
import { loadMcpConfig } from "../mcp/index.js";
import {
  isFolderTrusted,
  type LoadedSettings,
  loadSettings,
  type PluginSettings,
  trustFolder,
} from "../permissions/index.js";
import type { PluginContributions } from "../plugins/load-plugins.js";
import { type DiscoverResult, discoverSkills } from "../skills/index.js";

/** What the user is asked before a folder's own files may grant anything. */
export interface TrustQuestion {
  /** The project folder. */
  folder: string;
  /** What its files would grant, one line each (`permissions.allow "Bash" in /p/.mitsu/settings.json`). */
  grants: string[];
}

export interface WorkspaceTrustOptions {
  cwd: string;
  home: string;
  /** `--trust`: trust the folder for this run. */
  flag?: boolean;
  /** Asks the user (interactive mode); a yes is remembered in `~/.mitsu/trusted-folders.json`. */
  ask?: (question: TrustQuestion) => Promise<boolean>;
  /** Where the notice about ignored grants goes (stderr). */
  notice?: (message: string) => void;
  /** Only the settings files of these levels are read (`--setting-sources`); default all. */
  settingSources?: ReadonlyArray<"user" | "project" | "local">;
  /**
   * What the capabilities add to the loaders (the enabled plugins', see `loadPlugins`, and an embedder's), given the
   * settings' plugin keys: their skills, commands and agents load with the rest. Called once, with the first
   * settings read (the plugin keys do not depend on trust).
   */
  contributions?: (settings: PluginSettings) => Promise<PluginContributions>;
}

export interface WorkspaceTrust {
  settings: LoadedSettings;
  catalog: DiscoverResult;
  /** The agent definitions (project files' models outside the parent's family only when trusted). */
  agents: AgentDefinitions;
  trusted: boolean;
  /** Why the folder is trusted: `--trust`, `trusted-folders.json`, `answered yes`; undefined when it is not. */
  trustedBy?: string;
  /** The hooks as read for the question (`trusted: false`), when the folder stays untrusted: not read again. */
  hooks?: LoadedHooks;
}

/**
 * Reads the settings and skills of a workspace with what the project's own files grant (allow rules,
 * `defaultMode`, `additionalDirectories`, the sandbox's auto-allow and network, skills' `allowed-tools`,
 * hooks, agent files' models) counted only when the user trusts the folder: by `--trust`, by an earlier yes (remembered), or by a yes now, asked once when the files grant
 * something. Otherwise the grants are ignored and one notice names them and how to trust the folder; deny
 * and ask rules always apply, since they only restrict.
 */
export async function loadWorkspace(options: WorkspaceTrustOptions): Promise<WorkspaceTrust> {
  const { cwd, home } = options;
  const remembered = await isFolderTrusted(cwd, {
    home,
    ...(options.notice ? { onProblem: options.notice } : {}),
  });
  const trustedBy = options.flag ? "--trust" : remembered ? "trusted-folders.json" : undefined;
  // The settings first (their plugin keys say which plugins load), then the skills and agents, read at once.
  let contributions: Promise<PluginContributions | undefined> | undefined;
  const load = async (trusted: boolean) => {
    const settings = await loadSettings({
      cwd,
      home,
      trusted,
      ...(options.settingSources ? { sources: options.settingSources } : {}),
    });
    contributions ??= options.contributions
      ? options.contributions(settings.plugins)
      : Promise.resolve(undefined);
    const plugins = await contributions;
    const [catalog, agents] = await Promise.all([
      discoverSkills({ cwd, home, trusted, ...(plugins ? { plugins } : {}) }),
      loadAgentDefinitions({ cwd, home, trusted, ...(plugins ? { plugins: plugins.agents } : {}) }),
    ]);
    return { settings, catalog, agents };
  };
  if (trustedBy) return { ...(await load(true)), trusted: true, trustedBy };
  // A project file's hooks run commands of their own: the question lists them too (a yes approves them).
  // A project's MCP servers run commands too: they are named there (each is still approved on its own once trusted).
  const [untrusted, mcp] = await Promise.all([
    load(false),
    loadMcpConfig({ cwd, home }).catch(() => undefined),
  ]);
  const hooks = await loadHooks({ cwd, home, trusted: false, files: untrusted.settings.hookFiles });
  const hookLines = hooks.unapproved.flatMap((f) =>
    f.hooks.map(
      (h) =>
        `hooks ${h.event}${h.matcher ? ` [${h.matcher}]` : ""} ${JSON.stringify(h.command)} in ${f.file}`,
    ),
  );
  const mcpLines = (mcp?.servers ?? [])
    .filter((s) => s.scope === "project")
    .map(
      (s) =>
        `MCP server ${JSON.stringify(s.name)} in ${s.source} (asked about on its own once the folder is trusted)`,
    );
  const grants = [
    ...untrusted.settings.ignored,
    ...(untrusted.catalog.ignored ?? []),
    ...untrusted.agents.ignored,
    ...hookLines,
    ...mcpLines,
  ];
  if (grants.length === 0) return { ...untrusted, trusted: false, hooks };
  if (options.ask && (await options.ask({ folder: cwd, grants }))) {
    await trustFolder(cwd, { home });
    return { ...(await load(true)), trusted: true, trustedBy: "answered yes" };
  }
  options.notice?.(
    `This folder is not trusted, so what its own files grant was ignored:\n${grants.map((line) => `  - ${line}`).join("\n")}\n  To trust ${cwd}, run mitsu there at a terminal and answer yes, or pass --trust.`,
  );
  return { ...untrusted, trusted: false, hooks };
}
