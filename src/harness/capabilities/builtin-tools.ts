import type { Tool } from "../../loop/tool.js";
import type { PermissionChecker } from "../../permissions/index.js";
import type { BackgroundShells } from "../../tools/background-shells.js";
import { createBuiltinTools } from "../../tools/create-builtin-tools.js";
import type { CommandTerminal, FileAccess } from "../../tools/file-access.js";
import type { SandboxOptions } from "../../tools/sandbox.js";
import type { Capability } from "../capability.js";
import type { WorkspaceSetup } from "../workspace-setup.js";

export interface BuiltinToolsDeps {
  setup: WorkspaceSetup;
  shells: BackgroundShells;
  sandbox: SandboxOptions | undefined;
  /** The folders Read, Grep and Glob may read besides the workspace (skills' folders); read when the tools are made. */
  readOnlyRoots: () => Record<string, string>;
  /** The permission checker, once it exists (Read deny rules keep Grep and Glob out of what they cover). */
  permissions: () => PermissionChecker;
  /** Read, Write and Edit through an editor's buffers (ACP `fs/*`); default the disk. */
  files?: FileAccess | undefined;
  /** Bash's foreground commands in an editor's terminal (ACP `terminal/*`). */
  terminal?: CommandTerminal | undefined;
}

/**
 * The built-in tools (Read, Write, Edit, Bash, Grep, Glob, TodoWrite, and the background shells' BashOutput and
 * KillShell), made once the other capabilities have started (the skills' folders are readable).
 */
export function builtinToolsCapability(deps: BuiltinToolsDeps): Capability {
  let tools: Tool<never>[] | undefined;
  const { setup } = deps;
  const make = (): Tool<never>[] =>
    createBuiltinTools({
      cwd: setup.cwd,
      folders: setup.folders,
      env: setup.scrubbed,
      secretEnv: setup.secretEnv,
      memoryDir: setup.memory,
      searchExcludes: (root) => deps.permissions().readExcludes(root),
      readOnlyRoots: deps.readOnlyRoots(),
      shells: deps.shells,
      ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
      ...(deps.files ? { files: deps.files } : {}),
      ...(deps.terminal ? { terminal: deps.terminal } : {}),
    }) as Tool<never>[];
  return {
    name: "builtin-tools",
    tools: () => {
      tools ??= make();
      return tools;
    },
  };
}
