import { isFolderTrusted, loadSettings } from "../../permissions/index.js";
import type { PrintIo } from "../cli-io.js";

/**
 * The environment a session in this folder starts MCP servers with — the process's, then the settings' `env` (a
 * project's only when `trusted`) — and whether the user trusts the folder. `mitsu mcp approve` fingerprints a
 * server with it (as a trusted session would expand its `${VAR}`s), so an approval given here holds there.
 */
export async function mcpSessionEnv(
  io: Pick<PrintIo, "cwd" | "home" | "env">,
  options: { trusted?: boolean } = {},
): Promise<{ env: Record<string, string | undefined>; trusted: boolean; repositoryEnv: string[] }> {
  const remembered = await isFolderTrusted(io.cwd, { home: io.home });
  const trusted = options.trusted ?? remembered;
  const settings = await loadSettings({ cwd: io.cwd, home: io.home, trusted }).catch(() => undefined);
  return {
    env: { ...io.env, ...settings?.env },
    trusted: remembered,
    repositoryEnv: settings?.projectEnvKeys ?? [],
  };
}
