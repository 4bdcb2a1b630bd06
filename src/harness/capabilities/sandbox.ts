import type { FolderSet } from "../../fs/folder-set.js";
import { type SandboxSettings, sandboxAutoAllows } from "../../permissions/index.js";
import { checkSandbox, type SandboxOptions } from "../../tools/sandbox.js";
import type { Capability } from "../capability.js";

/** The bubblewrap sandbox for Bash (`--sandbox`, the settings' `sandbox.enabled`). */
export interface SandboxCapability extends Capability {
  /** How Bash is confined; undefined when the sandbox is off. */
  readonly options: SandboxOptions | undefined;
  /** Whether a Bash call no rule decides runs without asking (`autoAllowBashIfSandboxed`). */
  readonly autoAllow: boolean;
}

/** Its start-up work checks that bubblewrap works: never a silent fallback, without it the agent does not start. */
export function sandboxCapability(
  settings: SandboxSettings,
  flag: boolean | undefined,
  roots: { cwd: string; home: string; folders: FolderSet },
): SandboxCapability {
  const effective: SandboxSettings = flag ? { ...settings, enabled: true, enabledBy: "cli" } : settings;
  const options: SandboxOptions | undefined = effective.enabled
    ? {
        // Read at each command: a folder added mid-session is writable from the next command on, one removed is not.
        get writableRoots() {
          const unresolved = roots.folders.entries().filter((folder) => !folder.resolved);
          return [roots.cwd, ...unresolved.map((folder) => folder.real)];
        },
        get fixedRoots() {
          return roots.folders.entries().flatMap((folder) => (folder.resolved ? [folder.real] : []));
        },
        allowNetwork: effective.allowNetwork === true,
        allowUnixSockets: effective.allowUnixSockets === true,
        home: roots.home,
      }
    : undefined;
  return {
    name: "sandbox",
    options,
    autoAllow: options !== undefined && sandboxAutoAllows(effective),
    async start() {
      if (options) await checkSandbox({ ...options, cwd: roots.cwd });
    },
  };
}
