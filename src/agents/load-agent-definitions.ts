import type { Dirent } from "node:fs";
import { readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { toModelAlias } from "../providers/model-alias.js";
import { listDir } from "../skills/list-dir.js";
import type { AgentDefinition, AgentSource, AgentWarning } from "./agent-definition.js";
import { BUILTIN_AGENTS } from "./builtin-agents.js";
import { isFieldError, readAgentFile } from "./read-agent-file.js";

export interface LoadAgentDefinitionsOptions {
  /** The project folder: `.mitsu/agents/` and `.claude/agents/` are read here. */
  cwd: string;
  /** The user's home (default `os.homedir()`): `~/.mitsu/agents/` and `~/.claude/agents/`. */
  home?: string;
  /** The built-in agents (default `BUILTIN_AGENTS`); `[]` loads none. */
  builtins?: readonly AgentDefinition[];
  /**
   * Whether the user trusts the project folder. Untrusted (the default), a project agent file may still define
   * an agent — its prompt and a narrower tool list only restrict — but not choose a model outside the parent's
   * provider family: a `model: provider:id` there would send the sub-agent's conversation (the repository's
   * code) to another configured provider with the user's key. Such a model is ignored (the agent inherits) and
   * named in `ignored`, which the trust question lists.
   */
  trusted?: boolean;
  /** Enabled plugins' agent folders or files (see `loadPlugins`): their agents are named `plugin:agent`. */
  plugins?: ReadonlyArray<{ path: string; plugin: string }>;
}

export interface AgentDefinitions {
  /** Sorted by name (code-unit order), names unique: the order the Task tool lists them in. */
  agents: AgentDefinition[];
  /** Skipped files and notices, in discovery order. */
  warnings: AgentWarning[];
  /** What untrusted project agent files would have chosen: one line each (empty when trusted). */
  ignored: string[];
}

const RANK: Record<AgentSource, number> = { project: 0, user: 1, builtin: 2, plugin: 3 };

/**
 * Finds the agent definitions of a workspace: `.mitsu/agents/*.md` and `.claude/agents/*.md` (project),
 * `~/.mitsu/agents/*.md` and `~/.claude/agents/*.md` (user), and the built-ins. Never throws for a bad file:
 * it becomes one warning naming the file and the field, and everything else loads. On a name conflict project
 * beats user beats built-in (from the same place, `.mitsu` beats `.claude`), and the loser is noted.
 */
export async function loadAgentDefinitions(options: LoadAgentDefinitionsOptions): Promise<AgentDefinitions> {
  const home = options.home ?? homedir();
  const roots: Array<{ dir: string; source: AgentSource }> = [
    { dir: join(options.cwd, ".mitsu", "agents"), source: "project" },
    { dir: join(options.cwd, ".claude", "agents"), source: "project" },
    { dir: join(home, ".mitsu", "agents"), source: "user" },
    { dir: join(home, ".claude", "agents"), source: "user" },
  ];
  // Run from the home folder, `~/.mitsu/agents` is both the project's and the user's: read it once.
  const seen = new Set<string>();
  const unique: typeof roots = [];
  for (const root of roots) {
    const real = await realpath(root.dir).catch(() => undefined);
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    unique.push(root);
  }
  const warnings: AgentWarning[] = [];
  const read = (await Promise.all(unique.map((root) => readRoot(root.dir, root.source, warnings)))).flat();
  for (const { path, plugin } of options.plugins ?? []) {
    const single = path.toLowerCase().endsWith(".md");
    const found = single
      ? await readRoot(dirname(path), "plugin", warnings, MAX_DEPTH, basename(path))
      : await readRoot(path, "plugin", warnings);
    for (const agent of found) read.push({ ...agent, name: `${plugin}:${agent.name}`, plugin });
  }
  const ignored: string[] = [];
  const found =
    options.trusted === true
      ? read
      : read.map((agent) => {
          const model = agent.model?.trim();
          if (agent.source !== "project" || model === undefined || model === "" || model === "inherit")
            return agent;
          if (toModelAlias(model) !== undefined) return agent;
          ignored.push(`agent ${JSON.stringify(agent.name)} model ${JSON.stringify(model)} in ${agent.path}`);
          const { model: _dropped, ...rest } = agent;
          return rest;
        });
  const candidates = [...found, ...(options.builtins ?? BUILTIN_AGENTS)]
    .map((agent, order) => ({ agent, order }))
    .sort(
      (a, b) => RANK[a.agent.source ?? "project"] - RANK[b.agent.source ?? "project"] || a.order - b.order,
    );
  const winners = new Map<string, AgentDefinition>();
  for (const { agent } of candidates) {
    const winner = winners.get(agent.name);
    if (!winner) {
      winners.set(agent.name, agent);
      continue;
    }
    warnings.push({
      path: agent.path ?? `(built-in ${agent.name})`,
      field: "name",
      message: `${agent.name} is also defined by ${winner.path ?? "mitsu"} (${winner.source ?? "code"}), which takes precedence`,
      skipped: true,
    });
  }
  const agents = [...winners.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { agents, warnings, ignored };
}

/** How deep below an agents folder files are read (Claude Code reads its subfolders: `agents/review/x.md`). */
const MAX_DEPTH = 4;

async function readRoot(
  dir: string,
  source: AgentSource,
  warnings: AgentWarning[],
  depth = 0,
  only?: string,
): Promise<AgentDefinition[]> {
  const entries = await listDir(dir, warnings);
  const agents: AgentDefinition[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".") || (only !== undefined && entry.name !== only)) continue;
    const path = join(dir, entry.name);
    if (depth < MAX_DEPTH && (await isDirectory(entry, path))) {
      agents.push(...(await readRoot(path, source, warnings, depth + 1)));
      continue;
    }
    if (!entry.name.toLowerCase().endsWith(".md")) continue;
    if (!(await isFile(entry, path))) continue;
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code ?? String(cause);
      warnings.push({ path, field: "file", message: `cannot be read (${code})`, skipped: true });
      continue;
    }
    const read = readAgentFile(text, { path, source });
    if (isFieldError(read)) {
      warnings.push({ path, field: read.field, message: read.message, skipped: true });
      continue;
    }
    for (const field of read.repaired) {
      warnings.push({
        path,
        field,
        message: "is not valid YAML unquoted; read as plain text (quote the value to silence this)",
        skipped: false,
      });
    }
    for (const notice of read.notices) warnings.push({ path, ...notice, skipped: false });
    agents.push(read.agent);
  }
  return agents;
}

async function isDirectory(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Follows symbolic links, as users link shared agent files into a project. */
async function isFile(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isFile()) return true;
  if (!entry.isSymbolicLink()) return false;
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}
