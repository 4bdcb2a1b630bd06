import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isInside } from "../fs/real-path.js";
import { readInstructionFile } from "./read-instruction-file.js";
import { type ConditionalRule, MAX_PROJECT_GLOBS, readRules } from "./read-rules.js";

/** Where an instruction file came from. */
export type InstructionKind = "user" | "project" | "local" | "import";

export interface InstructionFile {
  /** Absolute path. */
  path: string;
  content: string;
  kind: InstructionKind;
  /** For imports: the file whose `@path` brought this one in. */
  importedBy?: string;
  /** 0 for files found by discovery; n for an import n levels down. */
  depth: number;
  /** Problems met while reading this file's imports (missing, cycle, too deep), also shown in `text`. */
  notes: string[];
}

/** A file's identity on disk at load time; `mtimeMs` is -1 for a file that did not exist. */
export interface FileStamp {
  path: string;
  mtimeMs: number;
  size: number;
}

export interface ProjectInstructions {
  /** In the order they appear in `text`: user file, then from the repository root down to cwd, imports after their importer. */
  files: InstructionFile[];
  /** Every note from every file. */
  notes: string[];
  /** The rendered text for the `<system-reminder>`; "" when there is no file. */
  text: string;
  /** Every path looked at, present or not: a new AGENTS.md appearing counts as a change. */
  stamps: FileStamp[];
  /**
   * The rules with `paths:` globs (`.claude/rules/*.md`): not in `text`, but sent when a file they match is read
   * (see `pathRulesSource`).
   */
  conditional: ConditionalRule[];
}

export interface LoadProjectInstructionsOptions {
  cwd: string;
  /** For `~/.mitsu/AGENTS.md` and `~/` imports; default `os.homedir()`. */
  home?: string;
  /** Default 5. */
  maxImportDepth?: number;
  /** A longer file is cut, with a note; default 100 000 characters. */
  maxFileChars?: number;
  /** A larger file is not opened at all, with a note; default 1 000 000 bytes. */
  maxFileBytes?: number;
  /** Once the files read hold this many characters, further imports are skipped with a note; default 400 000. */
  maxTotalChars?: number;
}

/**
 * File names looked for in every folder from the repository root down to cwd, in this order. `.claude/CLAUDE.md`
 * is Claude Code's other place for a folder's project instructions (it reads `./CLAUDE.md` and `./.claude/CLAUDE.md`).
 */
export const INSTRUCTION_FILE_NAMES = [
  "AGENTS.md",
  "CLAUDE.md",
  ".claude/CLAUDE.md",
  "CLAUDE.local.md",
] as const;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The folders from the repository root (the nearest folder above cwd holding `.git`) down to cwd; only cwd outside a repository. */
export async function instructionFolders(cwd: string): Promise<string[]> {
  const start = resolve(cwd);
  const chain: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    chain.push(dir);
    // `.git` is a folder in a clone and a file in a worktree or submodule: both mark a root.
    if (await exists(join(dir, ".git"))) return chain.reverse();
    if (dirname(dir) === dir) return [start];
  }
}

/**
 * `@path` imports in a file: outside fenced code blocks and inline code, preceded by the start of a line,
 * whitespace or an opening bracket or quote (so `a@b.com` is not one), and containing a `/` or `.` (so an `@mention` of a person is not).
 */
export function findImports(content: string): string[] {
  const found: string[] = [];
  let fence: string | undefined;
  for (const line of content.split("\n")) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const outsideCode = line.replace(/`[^`]*`/g, " ");
    for (const match of outsideCode.matchAll(/(?:^|[\s([{"'])@([^\s()[\]{}"']+)/g)) {
      const token = match[1]!.replace(/[.,;:!?)\]}>"']+$/, "");
      if (token !== "" && /[./]/.test(token)) found.push(token);
    }
  }
  return found;
}

function resolveImport(token: string, importer: string, home: string): string {
  if (token === "~" || token.startsWith("~/")) return join(home, token.slice(1));
  return isAbsolute(token) ? token : resolve(dirname(importer), token);
}

async function stampOf(path: string): Promise<FileStamp> {
  try {
    const s = await stat(path);
    return { path, mtimeMs: s.mtimeMs, size: s.size };
  } catch {
    return { path, mtimeMs: -1, size: -1 };
  }
}

/** A folder's real path (symbolic links resolved), or the path itself when it does not exist. */
async function realOrSelf(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

/**
 * Reads AGENTS.md / CLAUDE.md / CLAUDE.local.md from the repository root down to cwd, `~/.mitsu/AGENTS.md`, and
 * their imports. Every file but the user's own must lie, links resolved, inside the project (the repository
 * root, or cwd outside a repository) or the user's `~/.mitsu` and `~/.claude` folders, and be a regular file
 * of at most `maxFileBytes` (see `readInstructionFile`); anything else is skipped with a note, unopened.
 */
export async function loadProjectInstructions(
  options: LoadProjectInstructionsOptions,
): Promise<ProjectInstructions> {
  const home = options.home ?? homedir();
  const maxDepth = options.maxImportDepth ?? 5;
  const maxChars = options.maxFileChars ?? 100_000;
  const maxBytes = options.maxFileBytes ?? 1_000_000;
  const maxTotal = options.maxTotalChars ?? 400_000;
  const folders = await instructionFolders(options.cwd);
  const roots = await Promise.all(
    [folders[0] ?? resolve(options.cwd), join(home, ".mitsu"), join(home, ".claude")].map(realOrSelf),
  );
  const projectRoot = roots[0]!;
  const files: InstructionFile[] = [];
  const stamps: FileStamp[] = [];
  const included = new Set<string>();
  let totalChars = 0;

  const include = async (
    path: string,
    kind: InstructionKind,
    depth: number,
    stack: string[],
    importedBy?: string,
  ): Promise<{ missing: boolean; error?: string }> => {
    stamps.push(await stampOf(path));
    // The user's own file may be a link into their dotfiles: only its imports are held to the roots.
    const read = await readInstructionFile(path, { roots: kind === "user" ? undefined : roots, maxBytes });
    if (read.kind === "missing") return { missing: true };
    if (read.kind === "refused") return { missing: false, error: read.reason };
    // Outside the project, an import reaches the user's own folders (`@~/.claude/prefs.md`): only Markdown there, so a
    // repository's `@~/.mitsu/models.json` or `@~/.claude/.credentials.json` does not put the user's keys in the
    // conversation.
    if (kind === "import" && !isInside(projectRoot, read.realPath) && !/\.md$/i.test(read.realPath)) {
      return {
        missing: false,
        error: `${read.realPath} lies outside the project, where only Markdown files (.md) are imported`,
      };
    }
    const content = read.content;
    included.add(path);
    const file: InstructionFile = { path, content, kind, depth, notes: [] };
    if (importedBy !== undefined) file.importedBy = importedBy;
    if (content.length > maxChars) {
      file.content = content.slice(0, maxChars);
      file.notes.push(`${path} is longer than ${maxChars} characters; the rest was left out.`);
    }
    totalChars += file.content.length;
    files.push(file);
    for (const token of findImports(file.content)) {
      const target = resolveImport(token, path, home);
      if (stack.includes(target) || target === path) {
        file.notes.push(
          `Import cycle: ${[...stack, path, target].join(" → ")}; @${token} was not imported again.`,
        );
      } else if (included.has(target)) {
        // Imported twice from different files: the content is already above.
      } else if (depth + 1 > maxDepth) {
        file.notes.push(`@${token} was not imported: imports nest at most ${maxDepth} levels deep.`);
      } else if (totalChars >= maxTotal) {
        file.notes.push(
          `@${token} was not imported: the instruction files already hold ${maxTotal} characters.`,
        );
      } else {
        const result = await include(target, "import", depth + 1, [...stack, path], path);
        if (result.missing) file.notes.push(`@${token} was not imported: ${target} does not exist.`);
        else if (result.error) file.notes.push(`@${token} was not imported: ${result.error}`);
      }
    }
    return { missing: false };
  };

  const top = async (path: string, kind: InstructionKind) => {
    if (included.has(path)) return;
    const result = await include(path, kind, 0, []);
    if (result.error) {
      const note = `${path} could not be read: ${result.error}`;
      files.push({ path, content: "", kind, depth: 0, notes: [note] });
    }
  };

  const conditional: ConditionalRule[] = [];
  const globs = { left: MAX_PROJECT_GLOBS };
  const ruleNotes: string[] = [];
  /**
   * `.claude/rules` and `.mitsu/rules` under `dir`: the unconditional ones join the files, in place. `realBase`: the
   * real folder their `paths:` are relative to.
   */
  const rules = async (dir: string, kind: InstructionKind, realBase: string) => {
    for (const folder of [join(dir, ".claude", "rules"), join(dir, ".mitsu", "rules")]) {
      const found = await readRules(folder, {
        // The user's own rules may link anywhere (shared rules); a repository's only inside itself.
        root: kind === "user" ? undefined : projectRoot,
        base: realBase,
        maxBytes,
        maxChars,
        budget: () => maxTotal - totalChars,
        globs,
      });
      stamps.push(...(await Promise.all(found.stamped.map(stampOf))));
      ruleNotes.push(...found.notes);
      for (const rule of found.always) {
        totalChars += rule.content.length;
        files.push({ path: rule.path, content: rule.content, kind, depth: 0, notes: rule.notes });
      }
      conditional.push(...found.conditional);
    }
  };

  await top(join(home, ".mitsu", "AGENTS.md"), "user");
  // Claude Code's user instructions, so an existing set-up carries over.
  await top(join(home, ".claude", "CLAUDE.md"), "user");
  // The user's rules (`~/.claude/rules`, `~/.mitsu/rules`): their `paths:` are relative to the project root.
  await rules(home, "user", projectRoot);
  for (const dir of folders) {
    for (const name of INSTRUCTION_FILE_NAMES) {
      // A folder's rules weigh as its `.claude/CLAUDE.md` does: after it, before the private CLAUDE.local.md.
      if (name === "CLAUDE.local.md") await rules(dir, "project", await realOrSelf(dir));
      await top(join(dir, name), name === "CLAUDE.local.md" ? "local" : "project");
    }
  }
  const notes = [...files.flatMap((f) => f.notes), ...ruleNotes];
  return { files, notes, text: renderProjectInstructions(files, ruleNotes), stamps, conditional };
}

const KIND_LABEL: Record<InstructionKind, string> = {
  user: "the user's own instructions for every project",
  project: "project instructions, checked into the codebase",
  local: "the user's private instructions for this project, not checked in",
  import: "imported",
};

export function renderProjectInstructions(
  files: readonly InstructionFile[],
  ruleNotes: readonly string[] = [],
): string {
  if (files.length === 0 && ruleNotes.length === 0) return "";
  const sections = files.map((file) => {
    const label = file.kind === "import" ? `imported by ${file.importedBy}` : KIND_LABEL[file.kind];
    const notes = file.notes.map((note) => `\n\nNote: ${note}`).join("");
    return `Contents of ${file.path} (${label}):\n\n${file.content.trimEnd()}${notes}`;
  });
  return [
    "Instructions for this project follow, from the files named below, most general first; where they disagree, the later and more specific file wins. They override default behaviour: follow them exactly as written.",
    ...sections,
    // A repository can make many notes (a rule each): the first 20 are shown.
    ...ruleNotes.slice(0, 20).map((note) => `Note: ${note}`),
    ...(ruleNotes.length > 20
      ? [`Note: ${ruleNotes.length - 20} more notes about rules files were left out.`]
      : []),
  ].join("\n\n");
}

/** True when any file looked at by `loadProjectInstructions` changed, appeared or disappeared since. */
export async function instructionsChanged(stamps: readonly FileStamp[]): Promise<boolean> {
  for (const old of stamps) {
    const now = await stampOf(old.path);
    if (now.mtimeMs !== old.mtimeMs || now.size !== old.size) return true;
  }
  return false;
}
