import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { NotRegularFileError, openRegularFile } from "../fs/open-regular-file.js";
import { specialFileKind } from "../fs/special-file-kind.js";
import { isModelAlias } from "../providers/model-catalog.js";
import { listDir } from "./list-dir.js";
import { type FrontmatterResult, parseFrontmatter } from "./parse-frontmatter.js";
import { type FieldError, isError, readCommand, readSkill } from "./read-fields.js";
import type { Command, Skill, SkillSource, SkillWarning } from "./skill.js";

export interface DiscoverOptions {
  /** The project folder: `.mitsu/`, `.claude/` and `.agents/` are looked up here. */
  cwd: string;
  /** The user's home (default `os.homedir()`): `~/.mitsu/skills/` and `~/.mitsu/commands/`. */
  home?: string;
  /** The shipped skills folder (default: the package's `skills/`); `null` loads none. */
  builtinDir?: string | null;
  /**
   * Whether the user trusts the project folder. Untrusted (the default), the project's skills and commands
   * still load, but their `allowed-tools` are dropped (listed in `ignored`): a cloned repository must not
   * let the model approve its own calls by loading one of its skills.
   */
  trusted?: boolean;
  /** Enabled plugins' skill folders and command folders or files (see `loadPlugins`): names get `plugin:`. */
  plugins?: {
    skills: ReadonlyArray<{ path: string; plugin: string }>;
    commands: ReadonlyArray<{ path: string; plugin: string }>;
  };
}

export interface DiscoverResult {
  /** Sorted by name; names are unique across skills and commands. */
  skills: Skill[];
  /** Sorted by name. */
  commands: Command[];
  /** Skipped files and notices, in discovery order. */
  warnings: SkillWarning[];
  /** What untrusted project skills and commands would have pre-approved: one line each. */
  ignored?: string[];
}

/** The package's `skills/` folder: `src/skills` and `dist/skills` both sit two levels below the root. */
export const BUILTIN_SKILLS_DIR = fileURLToPath(new URL("../../skills/", import.meta.url));

const SOURCE_RANK: Record<SkillSource, number> = { project: 0, user: 1, builtin: 2, plugin: 3 };
const MAX_LISTED_FILES = 50;
/**
 * Largest SKILL.md or command file loaded: 256 KiB, some 64k tokens, far more than any instructions need (a
 * skill's long material belongs in its folder's files, read on demand). A larger file is skipped with a warning
 * rather than sent, whole, inside every request that loads it.
 */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
const MAX_DEPTH = 4;

interface Root {
  dir: string;
  source: SkillSource;
  kind: "skill" | "command";
  /** A plugin's root: names are namespaced with the plugin's. */
  plugin?: string;
}

/**
 * Finds skills (`<root>/<folder>/SKILL.md`) and commands (`<root>/**\/*.md`) in the project, the user's home
 * and the shipped folder. Never throws for bad files: each becomes a warning naming the file and the field,
 * and everything else still loads. On a same-name conflict project beats user beats builtin (and, from the same
 * place, a skill beats a command, and `.mitsu` beats `.claude` beats `.agents`); the loser is reported.
 */
export async function discoverSkills(options: DiscoverOptions): Promise<DiscoverResult> {
  const home = options.home ?? homedir();
  const builtin = options.builtinDir === undefined ? BUILTIN_SKILLS_DIR : options.builtinDir;
  const roots: Root[] = [
    { dir: join(options.cwd, ".mitsu", "skills"), source: "project", kind: "skill" },
    { dir: join(options.cwd, ".claude", "skills"), source: "project", kind: "skill" },
    { dir: join(options.cwd, ".agents", "skills"), source: "project", kind: "skill" },
    { dir: join(options.cwd, ".mitsu", "commands"), source: "project", kind: "command" },
    { dir: join(options.cwd, ".claude", "commands"), source: "project", kind: "command" },
    { dir: join(home, ".mitsu", "skills"), source: "user", kind: "skill" },
    { dir: join(home, ".mitsu", "commands"), source: "user", kind: "command" },
    // Claude Code's user folders, so an existing set-up carries over (mitsu's own win a same-name conflict).
    { dir: join(home, ".claude", "skills"), source: "user", kind: "skill" },
    { dir: join(home, ".claude", "commands"), source: "user", kind: "command" },
  ];
  if (builtin !== null) roots.push({ dir: builtin, source: "builtin", kind: "skill" });
  for (const { path, plugin } of options.plugins?.skills ?? []) {
    roots.push({ dir: path, source: "plugin", kind: "skill", plugin });
  }
  for (const { path, plugin } of options.plugins?.commands ?? []) {
    roots.push({ dir: path, source: "plugin", kind: "command", plugin });
  }

  // Run from the home folder, `~/.mitsu` is both the project's and the user's: read it once, as the project's.
  const seen = new Set<string>();
  const unique: Root[] = [];
  for (const root of roots) {
    const real = await realpath(root.dir).catch(() => undefined);
    if (real === undefined || seen.has(`${root.kind}:${real}`)) continue;
    seen.add(`${root.kind}:${real}`);
    unique.push(root);
  }

  const warnings: SkillWarning[] = [];
  const found = await Promise.all(
    unique.map((root) =>
      root.kind === "skill" ? readSkillRoot(root, warnings) : readCommandRoot(root, warnings),
    ),
  );

  const candidates = found.flat().map((entry, order) => ({ entry, order }));
  candidates.sort(
    (a, b) =>
      SOURCE_RANK[a.entry.source] - SOURCE_RANK[b.entry.source] ||
      (a.entry.kind === b.entry.kind ? 0 : a.entry.kind === "skill" ? -1 : 1) ||
      a.order - b.order,
  );
  const winners = new Map<string, Skill | Command>();
  for (const { entry } of candidates) {
    const winner = winners.get(entry.name);
    if (winner === undefined) {
      winners.set(entry.name, entry);
      continue;
    }
    warnings.push({
      path: entry.path,
      field: "name",
      message: `/${entry.name} is also defined by ${winner.path} (${winner.source} ${winner.kind}), which takes precedence`,
      skipped: true,
    });
  }
  const all = [...winners.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const ignored: string[] = [];
  if (options.trusted !== true) {
    // Run from the home folder, `~/.mitsu` counts as the project's but is the user's own.
    const userDir = await realpath(join(home, ".mitsu")).catch(() => join(home, ".mitsu"));
    for (const entry of all) {
      const model = entry.model?.trim();
      // As for agent files: a model of another provider would send the conversation (the repository's code) there
      // with the user's key. An alias (`sonnet`) stays with the session's provider.
      const otherModel = model !== undefined && model !== "" && model !== "inherit" && !isModelAlias(model);
      if (entry.source !== "project" || (!entry.allowedTools?.length && !otherModel)) continue;
      const real = await realpath(entry.path).catch(() => entry.path);
      if (real.startsWith(`${userDir}${sep}`)) continue;
      if (entry.allowedTools?.length) {
        ignored.push(
          `allowed-tools ${JSON.stringify(entry.allowedTools.join(", "))} of /${entry.name} in ${entry.path}`,
        );
        delete entry.allowedTools;
      }
      if (otherModel) {
        ignored.push(`model ${JSON.stringify(model)} of /${entry.name} in ${entry.path}`);
        delete entry.model;
      }
    }
  }
  return {
    skills: all.filter((entry): entry is Skill => entry.kind === "skill"),
    commands: all.filter((entry): entry is Command => entry.kind === "command"),
    warnings,
    ignored,
  };
}

async function readSkillRoot(root: Root, warnings: SkillWarning[]): Promise<Skill[]> {
  const entries = await listDir(root.dir, warnings);
  const skills: Skill[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const dir = join(root.dir, entry.name);
    if (!(await isDirectory(entry, dir))) {
      if (entry.name.toLowerCase().endsWith(".md")) {
        const folder = entry.name.replace(/\.md$/i, "").toLowerCase();
        warnings.push({
          path: dir,
          field: "SKILL.md",
          message: `a skill is a folder holding SKILL.md: move this file to ${folder}/SKILL.md`,
          skipped: true,
        });
      }
      continue;
    }
    const inside = await listDir(dir, warnings);
    const path = join(dir, "SKILL.md");
    if (!inside.some((e) => e.name === "SKILL.md")) {
      const near = inside.find((e) => e.name.toLowerCase() === "skill.md");
      warnings.push({
        path: near ? join(dir, near.name) : dir,
        field: "SKILL.md",
        message: near
          ? `must be named SKILL.md (upper case), not ${near.name}`
          : "the folder has no SKILL.md",
        skipped: true,
      });
      continue;
    }
    const parsed = await readFrontmatterFile(path, warnings);
    if (!parsed) continue;
    if (!parsed.hasFrontmatter) {
      warnings.push({
        path,
        field: "frontmatter",
        message: "is missing: SKILL.md must start with `---`, then `name:` and `description:`, then `---`",
        skipped: true,
      });
      continue;
    }
    const files = await listFiles(dir);
    const notices: FieldError[] = [];
    const skill = readSkill(
      parsed.data,
      { body: parsed.body, path, dir, folder: entry.name, source: root.source, files },
      notices,
    );
    if (isError(skill)) {
      warnings.push({ path, field: skill.field, message: skill.message, skipped: true });
      continue;
    }
    for (const notice of notices) warnings.push({ path, ...notice, skipped: false });
    noteRepairs(path, parsed.repaired, warnings);
    if (root.plugin !== undefined) {
      skill.name = `${root.plugin}:${skill.name}`;
      skill.plugin = root.plugin;
    }
    skills.push(skill);
  }
  return skills;
}

async function readCommandRoot(root: Root, warnings: SkillWarning[]): Promise<Command[]> {
  const commands: Command[] = [];
  const prefix = root.plugin === undefined ? [] : [root.plugin];
  const walk = async (dir: string, namespace: string[], only?: string): Promise<void> => {
    for (const entry of await listDir(dir, warnings)) {
      if (only !== undefined && entry.name !== only) continue;
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (await isDirectory(entry, path)) {
        if (namespace.length < MAX_DEPTH) await walk(path, [...namespace, entry.name]);
        continue;
      }
      if (!entry.name.toLowerCase().endsWith(".md")) continue;
      const name = [...prefix, ...namespace, entry.name.slice(0, -3)].join(":");
      // `git:commit.md` is Claude Code's other way to write a namespace: the same `/git:commit`.
      const bad = [...namespace, entry.name.slice(0, -3)].find((part) => !/^[A-Za-z0-9][\w.:-]*$/.test(part));
      if (bad !== undefined) {
        warnings.push({
          path,
          field: "name",
          message: `"${bad}" cannot be typed as /${name}: use letters, digits, "-", "_" and "." in file and folder names`,
          skipped: true,
        });
        continue;
      }
      const parsed = await readFrontmatterFile(path, warnings);
      if (!parsed) continue;
      const command = readCommand(parsed.data, { name, body: parsed.body, path, source: root.source });
      if (isError(command)) {
        warnings.push({ path, field: command.field, message: command.message, skipped: true });
        continue;
      }
      if (root.plugin !== undefined) command.plugin = root.plugin;
      noteRepairs(path, parsed.repaired, warnings);
      commands.push(command);
    }
  };
  // A plugin may name a single command file (`"commands": ["./extra/deploy.md"]`).
  if (root.dir.toLowerCase().endsWith(".md") && (await stat(root.dir).catch(() => undefined))?.isFile()) {
    await walk(dirname(root.dir), [], basename(root.dir));
    return commands;
  }
  await walk(root.dir, []);
  return commands;
}

function noteRepairs(path: string, repaired: string[], warnings: SkillWarning[]): void {
  // `argument-hint: [file] [message]` is how Claude Code's own docs write it: no notice for that one.
  for (const field of repaired.filter((f) => f !== "argument-hint")) {
    warnings.push({
      path,
      field,
      message: "is not valid YAML unquoted; read as plain text (quote the value to silence this)",
      skipped: false,
    });
  }
}

/** The file's frontmatter and body, or undefined with a warning (unreadable, or bad frontmatter): it is skipped. */
async function readFrontmatterFile(
  path: string,
  warnings: SkillWarning[],
): Promise<Extract<FrontmatterResult, { ok: true }> | undefined> {
  let text: string;
  try {
    // Opened without blocking and checked to be a regular file: a FIFO named SKILL.md must not hang discovery.
    const { handle, stats } = await openRegularFile(path);
    try {
      if (stats.size > MAX_SKILL_FILE_BYTES) {
        const size = `${(stats.size / 1024).toFixed(0)} KiB`;
        warnings.push({
          path,
          field: "file",
          message: `is ${size}, larger than the ${MAX_SKILL_FILE_BYTES / 1024} KiB a skill or command may be: move long material into files beside it, which the model reads when needed`,
          skipped: true,
        });
        return undefined;
      }
      const buffer = Buffer.alloc(MAX_SKILL_FILE_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead > MAX_SKILL_FILE_BYTES) {
        warnings.push({
          path,
          field: "file",
          message: `grew past the ${MAX_SKILL_FILE_BYTES / 1024} KiB a skill or command may be while it was read`,
          skipped: true,
        });
        return undefined;
      }
      text = buffer.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
  } catch (cause) {
    const message =
      cause instanceof NotRegularFileError
        ? `is not a regular file (it is ${specialFileKind(cause.stats)})`
        : `cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`;
    warnings.push({ path, field: "file", message, skipped: true });
    return undefined;
  }
  const parsed = parseFrontmatter(text);
  if (parsed.ok) return parsed;
  warnings.push({ path, field: parsed.field, message: parsed.message, skipped: true });
  return undefined;
}

/** Follows symbolic links, as users link shared skill folders into a project. */
async function isDirectory(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** The skill folder's other files, to point to (never to load): relative POSIX paths, sorted, capped. */
async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (current: string, depth: number): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true }).catch(() => [] as Dirent[]);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (out.length > MAX_LISTED_FILES) return;
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(path, depth + 1);
      } else if (!(current === dir && entry.name === "SKILL.md")) {
        out.push(relative(dir, path).split(sep).join("/"));
      }
    }
  };
  await walk(dir, 0);
  return out.length > MAX_LISTED_FILES ? [...out.slice(0, MAX_LISTED_FILES), "…"] : out;
}
