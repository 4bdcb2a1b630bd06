/** What a stdio server inherits: enough to find programs and write text, nothing that could be a secret. */
const INHERITED = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "TERM", "TMPDIR", "SHELL", "TZ"];

/**
 * The environment of a stdio server: an allow-list of the parent's variables (PATH, HOME, USER, LOGNAME, the
 * locale — LANG and LC_* —, TERM, TMPDIR, SHELL, TZ) plus the server's configured `env`. Nothing else passes, so
 * the provider API keys (and any other secret in the shell) reach a server only when its configuration names them.
 * Values that are shell functions (`() {…}`) are never passed.
 */
export function mcpServerEnv(
  parent: Record<string, string | undefined>,
  configured: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined || value.startsWith("()")) continue;
    if (INHERITED.includes(name) || name.startsWith("LC_")) env[name] = value;
  }
  return { ...env, ...configured };
}
