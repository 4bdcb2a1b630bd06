import { formatAgentsReport, loadAgentDefinitions } from "../../agents/index.js";
import { isFolderTrusted } from "../../permissions/index.js";
import { loadPlugins } from "../../plugins/load-plugins.js";
import { createBuiltinTools } from "../../tools/create-builtin-tools.js";
import type { PrintIo } from "../cli-io.js";

/** `mitsu agents`: the agent types the Task tool offers (name, source, tools, model), and the files skipped and why. */
export async function agentsCommand(io: PrintIo): Promise<number> {
  const trusted = await isFolderTrusted(io.cwd, { home: io.home });
  const { contributions } = await loadPlugins({ cwd: io.cwd, home: io.home });
  const result = await loadAgentDefinitions({
    cwd: io.cwd,
    home: io.home,
    trusted,
    plugins: contributions.agents,
  });
  const toolNames = [...createBuiltinTools({ cwd: io.cwd }).map((t) => t.name), "Skill", "Task"];
  io.stdout.write(`${formatAgentsReport(result, { cwd: io.cwd, toolNames })}\n`);
  return 0;
}
