import { execFile } from "node:child_process";
import {
  type AutocompleteItem,
  type AutocompleteProvider,
  type AutocompleteSuggestions,
  CombinedAutocompleteProvider,
  fuzzyFilter,
  type SlashCommand,
} from "@mariozechner/pi-tui";

/** Files listed for `@` completion at most (a huge tree is cut, not waited for). */
const MAX_FILES = 20_000;
const LIST_TIMEOUT_MS = 3_000;
/**
 * What `@path` in a prompt can attach (see prompt-content's AT_FILE): no spaces, quotes or brackets; nor control
 * characters, which a cloned repository's file names may hold to write on the terminal from the completion list.
 */
const ATTACHABLE = /^[^\s`'"()<>[\]{}\u0000-\u001f\u007f-\u009f]+$/;

export interface PromptAutocompleteOptions {
  /** The slash commands (built-ins, commands, skills, MCP prompts), asked on each completion: /clear can change them. */
  commands: () => SlashCommand[];
  /** The working folder: `@` paths are relative to it. */
  cwd: string;
  /** Lists the folder's files (relative paths), `.gitignore` respected. Default: `rg --files` (ripgrep). */
  listFiles?: (cwd: string) => Promise<string[]>;
}

/** The editor's completion, with an answer now where one can be given without waiting. */
export interface PromptAutocomplete extends AutocompleteProvider {
  /**
   * The suggestions for the text before the cursor, computed at once: for a slash command's name, and for an
   * `@path` once the folder's files are listed; null when there are none; undefined when only the asynchronous
   * `getSuggestions` can tell (the files not listed yet, a path, a command's arguments).
   */
  suggestNow(
    lines: string[],
    cursorLine: number,
    cursorCol: number,
    force: boolean,
  ): AutocompleteSuggestions | null | undefined;
}

/**
 * Tab completion in the prompt editor: `/` at the start completes slash commands and skills (with their
 * descriptions); `@` completes a file or folder of the working folder, fuzzy, the files `.gitignore` ignores
 * left out (the list is read once, on the first `@`); Tab elsewhere completes a path as a shell would.
 */
export function createPromptAutocomplete(options: PromptAutocompleteOptions): PromptAutocomplete {
  let files: Promise<string[]> | undefined;
  let listed: string[] | undefined;
  const list = () => {
    files ??= (options.listFiles ?? ripgrepFiles)(options.cwd)
      .catch(() => [])
      .then((found) => {
        listed = found;
        return found;
      });
    return files;
  };
  const combined = () => new CombinedAutocompleteProvider(options.commands(), options.cwd, null);
  return {
    suggestNow(lines, cursorLine, cursorCol, force) {
      const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
      const at = /(?:^|[\s(["'])@([^\s`'"()<>[\]{}]*)$/.exec(before);
      if (at) {
        if (listed === undefined) return undefined;
        const query = at[1] ?? "";
        const items = matchFiles(listed, query);
        return items.length === 0 ? null : { items, prefix: `@${query}` };
      }
      if (force || !before.startsWith("/")) return undefined;
      const space = before.indexOf(" ");
      if (space !== -1) {
        // A command's arguments: only a command that completes them can say, and it may take its time.
        const name = before.slice(1, space);
        const command = options.commands().find((c) => c.name === name);
        return command?.getArgumentCompletions ? undefined : null;
      }
      return slashSuggestions(options.commands(), before);
    },
    async getSuggestions(lines, cursorLine, cursorCol, context): Promise<AutocompleteSuggestions | null> {
      const before = (lines[cursorLine] ?? "").slice(0, cursorCol);
      const at = /(?:^|[\s(["'])@([^\s`'"()<>[\]{}]*)$/.exec(before);
      if (at) {
        const query = at[1] ?? "";
        const items = matchFiles(await list(), query);
        if (context.signal.aborted || items.length === 0) return null;
        return { items, prefix: `@${query}` };
      }
      return combined().getSuggestions(lines, cursorLine, cursorCol, context);
    },
    applyCompletion(lines, cursorLine, cursorCol, item, prefix) {
      return combined().applyCompletion(lines, cursorLine, cursorCol, item, prefix);
    },
    shouldTriggerFileCompletion(lines, cursorLine, cursorCol) {
      return combined().shouldTriggerFileCompletion(lines, cursorLine, cursorCol);
    },
  };
}

/** The slash commands whose names match what follows the "/" of `before`, as pi-tui's own completion lists them. */
function slashSuggestions(commands: SlashCommand[], before: string): AutocompleteSuggestions | null {
  const items = fuzzyFilter(commands, before.slice(1), (c) => c.name).map(
    (c): AutocompleteItem => ({
      value: c.name,
      label: c.name,
      ...(c.argumentHint || c.description
        ? {
            description: c.argumentHint
              ? c.description
                ? `${c.argumentHint} — ${c.description}`
                : c.argumentHint
              : c.description,
          }
        : {}),
    }),
  );
  return items.length === 0 ? null : { items, prefix: before };
}

/** The files and their folders that match `query`, best first: name starts with it, name has it, path has it. */
export function matchFiles(files: readonly string[], query: string): AutocompleteItem[] {
  const q = query.toLowerCase();
  const folders = new Set<string>();
  for (const file of files) {
    let slash = file.lastIndexOf("/");
    while (slash > 0) {
      const folder = file.slice(0, slash);
      if (folders.has(folder)) break;
      folders.add(folder);
      slash = folder.lastIndexOf("/");
    }
  }
  const scored: Array<{ path: string; folder: boolean; score: number }> = [];
  const consider = (path: string, folder: boolean) => {
    if (!ATTACHABLE.test(path)) return;
    const lower = path.toLowerCase();
    const name = lower.slice(lower.lastIndexOf("/") + 1);
    const score =
      q === ""
        ? 1
        : lower.startsWith(q)
          ? 4
          : name.startsWith(q)
            ? 3
            : name.includes(q)
              ? 2
              : lower.includes(q)
                ? 1
                : 0;
    if (score > 0) scored.push({ path, folder, score: score + (folder ? 0.5 : 0) });
  };
  for (const folder of folders) consider(folder, true);
  for (const file of files) consider(file, false);
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, 20).map(({ path, folder }) => ({
    value: `@${path}${folder ? "/" : ""}`,
    label: `${path}${folder ? "/" : ""}`,
  }));
}

async function ripgrepFiles(cwd: string): Promise<string[]> {
  const { rgPath } = await import("@vscode/ripgrep");
  return new Promise((resolve) => {
    execFile(
      rgPath,
      ["--files", "--hidden", "--glob", "!.git", "--max-count", "1"],
      {
        cwd,
        // ripgrep needs nothing of the environment: no key travels with it.
        env: { PATH: process.env.PATH ?? "" },
        timeout: LIST_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
        windowsHide: true,
      },
      (_error, stdout) => {
        // A timeout or an error still hands back what was listed.
        resolve(
          String(stdout ?? "")
            .split("\n")
            .filter((line) => line !== "")
            .slice(0, MAX_FILES)
            .sort(),
        );
      },
    );
  });
}
