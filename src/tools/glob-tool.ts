import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import type { Ignore } from "ignore";
import { lazyRequire } from "../fs/lazy-require.js";
import { isInside } from "../fs/real-path.js";
import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import type { Workspace } from "./workspace.js";

// The walker and the .gitignore matcher load on the first search, not with the tool (start-up pays for neither).
const ignoreFactory = lazyRequire<typeof import("ignore")>("ignore");
const ignore = (): Ignore => ignoreFactory()();
const loadGlob = async () => (await import("tinyglobby")).glob;

export interface GlobInput {
  pattern: string;
  path?: string;
}

export interface GlobToolOptions {
  workspace: Workspace;
  /** Paths in one result. Default 100. */
  maxResults?: number;
  /**
   * Files never listed, as gitignore-style globs relative to `root` (the workspace root of the search;
   * anchored ones start with `/`): the Read deny rules, so that their names do not leak through a listing.
   */
  excludes?: (root: string) => Promise<readonly string[]> | readonly string[];
}

export function createGlobTool(options: GlobToolOptions): Tool<GlobInput> {
  const { workspace } = options;
  const maxResults = options.maxResults ?? 100;
  return {
    name: "Glob",
    description: [
      'Finds files by name with a glob pattern, such as "**/*.ts" or "src/**/test_*.py". Use it instead of find or ls through Bash.',
      "- path: the folder to search in (default: the working folder); the pattern is relative to it and cannot leave it.",
      "- Files ignored by .gitignore and the .git folder are skipped; symbolic links to folders are not followed.",
      `- Returns matching file paths, newest (most recently modified) first, at most ${maxResults}: use a narrower pattern or path if the result says it was cut.`,
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        pattern: { type: "string", description: "The glob pattern to match files against" },
        path: { type: "string", description: "The folder to search in (default: the working folder)" },
      },
      required: ["pattern"],
      additionalProperties: false,
    },
    readOnly: true,
    permissionFacts: (input) => ({
      paths: [{ path: input.path ?? ".", access: "read", folder: true }],
      display: input.pattern,
    }),
    summarize: (input) => `Glob ${input.pattern}${input.path ? ` in ${input.path}` : ""}`,
    async run(input) {
      const pattern = input.pattern.replace(/^\.\//, "");
      if (isAbsolute(pattern) || pattern.split("/").includes("..")) {
        throw new ToolError(
          `The pattern ${JSON.stringify(input.pattern)} must be relative and stay inside the search folder: pass the folder as path, and a pattern such as "**/*.ts".`,
        );
      }
      const folder = await workspace.resolve(input.path ?? ".");
      const folderStats = await stat(folder).catch(() => undefined);
      if (!folderStats?.isDirectory()) {
        throw new ToolError(`${workspace.display(folder)} is not a folder. Give a folder as path.`);
      }
      const root = await rootFor(workspace, folder);
      const { rules, prune } = await loadGitignores(root, folder);
      const glob = await loadGlob();
      const found = await glob(pattern, {
        cwd: folder,
        absolute: true,
        onlyFiles: true,
        dot: true,
        followSymbolicLinks: false,
        ignore: ["**/.git/**", ...prune],
      });
      const excluded = ignore().add([...((await options.excludes?.(root)) ?? [])]);
      const kept = found.filter(
        (file) =>
          isInside(folder, file) &&
          !isIgnored(rules, file) &&
          !(isInside(root, file) && file !== root && excluded.ignores(relative(root, file))),
      );
      const withTimes = await Promise.all(
        kept.map(async (file) => ({ file, mtime: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 })),
      );
      withTimes.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
      if (withTimes.length === 0) return "No files found.";
      const shown = withTimes.slice(0, maxResults).map(({ file }) => workspace.display(file));
      if (withTimes.length > maxResults) {
        shown.push(
          `[Showing the ${maxResults} newest of ${withTimes.length} files. Use a more specific pattern or path to see others.]`,
        );
      }
      return shown.join("\n");
    },
  };
}

interface GitignoreRules {
  folder: string;
  rules: Ignore;
}

/** The workspace root that holds `folder`: .gitignore files are read from there down. */
async function rootFor(workspace: Workspace, folder: string): Promise<string> {
  for (const root of workspace.roots) {
    const real = await workspace.resolve(root).catch(() => undefined);
    if (real && isInside(real, folder)) return real;
  }
  return folder;
}

/**
 * The .gitignore files that apply under `folder`: those of its ancestors up to the workspace root, and
 * those below it (found with one more walk, which skips what they ignore only approximately).
 */
async function loadGitignores(
  root: string,
  folder: string,
): Promise<{ rules: GitignoreRules[]; prune: string[] }> {
  const files: string[] = [];
  for (let dir = folder; isInside(root, dir); dir = dirname(dir)) {
    files.push(join(dir, ".gitignore"));
    if (dir === root) break;
  }
  const glob = await loadGlob();
  const nested = await glob("**/.gitignore", {
    cwd: folder,
    absolute: true,
    dot: true,
    followSymbolicLinks: false,
    ignore: ["**/.git/**", "**/node_modules/**"],
  });
  const rules: GitignoreRules[] = [];
  const prune: string[] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) continue;
    rules.push({ folder: dirname(file), rules: ignore().add(text) });
    prune.push(...pruneGlobs(text));
  }
  for (const file of nested.filter((file) => file !== join(folder, ".gitignore"))) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text !== undefined) rules.push({ folder: dirname(file), rules: ignore().add(text) });
  }
  return { rules, prune };
}

/**
 * Folders named by a plain name in a .gitignore above the search (`node_modules`, `dist/`) are not walked
 * at all: git cannot re-include anything below an ignored folder, so skipping them changes no result and
 * spares walking thousands of files. Everything else is filtered after the walk.
 */
function pruneGlobs(gitignore: string): string[] {
  return gitignore
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\/$/, ""))
    .filter((line) => /^[A-Za-z0-9._-]+$/.test(line) && line !== "." && line !== "..")
    .map((name) => `**/${name}/**`);
}

function isIgnored(rules: GitignoreRules[], file: string): boolean {
  return rules.some(({ folder, rules }) => {
    if (!isInside(folder, file) || folder === file) return false;
    return rules.ignores(relative(folder, file));
  });
}
