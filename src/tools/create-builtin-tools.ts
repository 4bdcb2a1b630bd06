import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FolderSet } from "../fs/folder-set.js";
import type { Tool } from "../loop/tool.js";
import type { BackgroundShells } from "./background-shells.js";
import { createBashOutputTool } from "./bash-output-tool.js";
import { createBashTool } from "./bash-tool.js";
import { createEditTool } from "./edit-tool.js";
import type { CommandTerminal, FileAccess } from "./file-access.js";
import { createGlobTool } from "./glob-tool.js";
import { createGrepTool } from "./grep-tool.js";
import { createKillShellTool } from "./kill-shell-tool.js";
import { createReadTool } from "./read-tool.js";
import type { SandboxOptions } from "./sandbox.js";
import { createTodoWriteTool } from "./todo-write-tool.js";
import { createWebFetchTool, type WebFetchToolOptions } from "./web-fetch-tool.js";
import { createWebSearchTool, type WebSearchToolOptions } from "./web-search-tool.js";
import { Workspace } from "./workspace.js";
import { createWriteTool } from "./write-tool.js";

export interface BuiltinToolsOptions {
  /** The working folder: the first workspace root, where Bash runs and relative paths resolve. */
  cwd: string;
  /** More folders the file tools may reach (`--add-dir`, `permissions.additionalDirectories`). */
  additionalRoots?: string[];
  /**
   * More folders, as a live value the tools read at each call (the harness's: a folder a hook or `/add-dir` adds
   * mid-session is reachable at once). They come before `additionalRoots`.
   */
  folders?: FolderSet;
  /** The environment Bash commands start from (provider API keys are dropped). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** More variables Bash commands never see, besides the known provider keys (models.json's `apiKeyEnv` names). */
  secretEnv?: readonly string[];
  /**
   * The model's persistent memory folder (`~/.mitsu/projects/<project>/memory`): the file tools may Read and
   * Write there too, as the system prompt tells the model.
   */
  memoryDir?: string;
  /** Where Bash saves full outputs that were cut (in a folder of its own). Default the OS temp folder. */
  tempDir?: string;
  /** Files Grep and Glob never search or list (the Read deny rules): see `GrepToolOptions.excludes`. */
  searchExcludes?: (root: string) => Promise<readonly string[]> | readonly string[];
  /**
   * Folders Read, Grep and Glob may reach but nothing may write, with what they hold (e.g. a user or shipped
   * skill's folder, whose `references/` and `scripts/` its instructions point to).
   */
  readOnlyRoots?: Record<string, string>;
  /**
   * The session's background shells: Bash then offers `run_in_background`, with BashOutput and KillShell. The
   * caller owns them and stops them at the session's end (`BackgroundShells.killAll`).
   */
  shells?: BackgroundShells;
  /** Run Bash commands inside the bubblewrap sandbox (Linux). Check it first with `checkSandbox`. */
  sandbox?: SandboxOptions;
  /** WebFetch's model call: answers a prompt about a fetched page. Without it there is no WebFetch tool. */
  webFetch?: Omit<WebFetchToolOptions, "fetch"> & { fetch?: typeof fetch };
  /** The provider's server-side web search. Without it (no provider offers one) there is no WebSearch tool. */
  webSearch?: WebSearchToolOptions;
  /** Read, Write and Edit take a text file's content from and give it to an editor. See `FileAccess`. */
  files?: FileAccess;
  /** Bash runs foreground commands in an editor's terminal. See `CommandTerminal`. */
  terminal?: CommandTerminal;
}

/**
 * Read, Write, Edit, Bash, Grep, Glob and TodoWrite over one workspace; BashOutput and KillShell with `shells`,
 * WebFetch with `webFetch`, WebSearch with `webSearch`, always in this order (the tools field is part of the
 * cached prefix). Read, Grep and Glob may also reach the folder where Bash saves full outputs, so the model can
 * page through an output that was cut, and the `readOnlyRoots`. The tools keep per-run state (which files were
 * Read, the task list) in `ToolContext.state`, so one set of tools can serve many runs.
 */
// biome-ignore lint/suspicious/noExplicitAny: each tool has its own input type; the loop validates input against the schema before run.
export function createBuiltinTools(options: BuiltinToolsOptions): Tool<any>[] {
  const cwd = resolve(options.cwd);
  const roots = [cwd, ...(options.additionalRoots ?? []).map((root) => resolve(cwd, root))];
  const outputDir = join(
    options.tempDir ?? tmpdir(),
    `mitsu-bash-${process.pid}-${randomBytes(4).toString("hex")}`,
  );
  const memory = options.memoryDir ? { [resolve(options.memoryDir)]: "your persistent memory folder" } : {};
  const live = options.folders;
  const workspace = new Workspace([...roots, ...Object.keys(memory)], memory, live);
  const readOnly = Object.fromEntries(
    Object.entries(options.readOnlyRoots ?? {}).map(([root, note]) => [resolve(cwd, root), note]),
  );
  const readable = new Workspace(
    [...roots, ...Object.keys(memory), outputDir, ...Object.keys(readOnly)],
    {
      ...memory,
      [outputDir]: "the folder where Bash saves full outputs",
      ...readOnly,
    },
    live,
  );
  const excludes = options.searchExcludes;
  const bashOptions = {
    cwd,
    outputDir,
    ...(options.env ? { env: options.env } : {}),
    ...(options.secretEnv ? { secretEnv: options.secretEnv } : {}),
    ...(options.shells ? { shells: options.shells } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.terminal ? { terminal: options.terminal } : {}),
  };
  const files = options.files ? { files: options.files } : {};
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  const tools: Tool<any>[] = [
    createReadTool({ workspace: readable, ...files }),
    createWriteTool({ workspace, ...files }),
    createEditTool({ workspace, ...files }),
    createBashTool(bashOptions),
    createGrepTool({ workspace: readable, ...(excludes ? { excludes } : {}) }),
    createGlobTool({ workspace: readable, ...(excludes ? { excludes } : {}) }),
    createTodoWriteTool(),
  ];
  if (options.shells) tools.push(createBashOutputTool(options.shells), createKillShellTool(options.shells));
  if (options.webFetch) tools.push(createWebFetchTool({ fetch, ...options.webFetch }));
  if (options.webSearch) tools.push(createWebSearchTool(options.webSearch));
  return tools;
}
