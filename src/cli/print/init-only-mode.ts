import { createCodingAgent } from "../../harness/index.js";
import { agentOptionsFor } from "../agent-options.js";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import { stripControls } from "../render/terminal-text.js";

/**
 * `mitsu --init-only`: Claude Code's flag that runs the Setup hooks (trigger `init`) and exits, with no session and
 * no model call. The agent is made as for a prompt (settings, trust, hooks) without MCP servers, the Setup hooks
 * fire while it is made, and it is closed. Notices go to stderr; 0 unless the agent cannot be made.
 */
export async function initOnlyMode(options: CliOptions, io: PrintIo): Promise<number> {
  const warn = (message: string) => io.stderr.write(`⚠ ${stripControls(message)}\n`);
  const agent = await createCodingAgent({
    ...agentOptionsFor({ ...options, noSessionLog: true }, io, { onWarning: warn }),
    setupHooks: "init",
    mcp: false,
  });
  await agent.close();
  return 0;
}
