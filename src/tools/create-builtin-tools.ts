import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Tool } from "../loop/tool.js";
import { createBashTool } from "./bash-tool.js";
import { createEditTool } from "./edit-tool.js";
import { createGlobTool } from "./glob-tool.js";
import { createGrepTool } from "./grep-tool.js";
import { createReadTool } from "./read-tool.js";
import { Workspace } from "./workspace.js";
import { createWriteTool } from "./write-tool.js";

export interface BuiltinToolsOptions {
  /** The working folder: the first workspace root, where Bash runs and relative paths resolve. */
  cwd: string;
  /** More folders the file tools may reach (`--add-dir`, `permissions.additionalDirectories`). */
  additionalRoots?: string[];
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
}

/**
 * Read, Write, Edit, Bash, Grep and Glob over one workspace. Read and Grep may also reach the folder where
 * Bash saves full outputs, so the model can page through an output that was cut. The tools keep per-run
 * state (which files were Read) in `ToolContext.state`, so one set of tools can serve many runs.
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
  const workspace = new Workspace([...roots, ...Object.keys(memory)], memory);
  const readable = new Workspace([...roots, ...Object.keys(memory), outputDir], {
    ...memory,
    [outputDir]: "the folder where Bash saves full outputs",
  });
  const excludes = options.searchExcludes;
  const bashOptions = {
    cwd,
    outputDir,
    ...(options.env ? { env: options.env } : {}),
    ...(options.secretEnv ? { secretEnv: options.secretEnv } : {}),
  };
  return [
    createReadTool({ workspace: readable }),
    createWriteTool({ workspace }),
    createEditTool({ workspace }),
    createBashTool(bashOptions),
    createGrepTool({ workspace: readable, ...(excludes ? { excludes } : {}) }),
    createGlobTool({ workspace, ...(excludes ? { excludes } : {}) }),
  ];
}
