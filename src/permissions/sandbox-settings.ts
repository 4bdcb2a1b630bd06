/** The `sandbox` section of the settings files (Claude Code's names). */
export interface SandboxSettings {
  /** Run Bash commands inside the bubblewrap sandbox (Linux). */
  enabled?: boolean;
  /**
   * Sandboxed Bash commands run without asking (deny and ask rules still apply). Default true when the user
   * turned the sandbox on (the command line, `~/.mitsu/settings.json` or `.mitsu/settings.local.json`).
   */
  autoAllowBashIfSandboxed?: boolean;
  /** Let sandboxed commands reach the network. Default false. */
  allowNetwork?: boolean;
  /**
   * Let sandboxed commands use unix sockets (ssh-agent, docker.sock, a desktop bus). Default false: a seccomp
   * filter refuses them. All or none: the kernel filter cannot tell one socket's path from another's.
   */
  allowUnixSockets?: boolean;
  /** Where `enabled: true` came from (`user`, `project` or `local`); the command line says `cli`. */
  enabledBy?: "user" | "project" | "local" | "cli";
}

/**
 * Merges one file's `sandbox` section into `into` (later files win). A repository grants itself nothing: the
 * shared project file (`.mitsu/settings.json`, committed with the code) may turn the sandbox on and make it
 * stricter, but its `autoAllowBashIfSandboxed: true`, `allowNetwork: true` and `allowUnixSockets: true` are ignored, with a warning.
 * Throws a message naming the file for a malformed section.
 */
export function applySandboxSection(
  section: unknown,
  file: string,
  kind: "user" | "project" | "local",
  into: SandboxSettings,
  warnings: string[],
): void {
  if (section === undefined) return;
  if (typeof section !== "object" || section === null || Array.isArray(section)) {
    throw new Error(`"sandbox" in settings file ${file} must be an object.`);
  }
  const s = section as Record<string, unknown>;
  for (const key of ["enabled", "autoAllowBashIfSandboxed", "allowNetwork", "allowUnixSockets"] as const) {
    const value = s[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean")
      throw new Error(`sandbox.${key} in settings file ${file} must be true or false.`);
    if (kind === "project" && value && key !== "enabled") {
      warnings.push(
        `${file}: sandbox.${key} is ignored in a project's shared settings (a repository cannot grant itself that); set it in ~/.mitsu/settings.json or .mitsu/settings.local.json.`,
      );
      continue;
    }
    into[key] = value;
    if (key === "enabled") {
      if (value) into.enabledBy = kind;
      else delete into.enabledBy;
    }
  }
}

/** Whether sandboxed Bash runs without asking, by the rule above. */
export function sandboxAutoAllows(settings: SandboxSettings): boolean {
  if (!settings.enabled) return false;
  if (settings.autoAllowBashIfSandboxed !== undefined) return settings.autoAllowBashIfSandboxed;
  return settings.enabledBy !== "project";
}
