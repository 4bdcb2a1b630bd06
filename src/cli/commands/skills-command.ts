import { isFolderTrusted } from "../../permissions/index.js";
import { loadPlugins } from "../../plugins/load-plugins.js";
import { discoverSkills, formatSkillsReport } from "../../skills/index.js";
import type { PrintIo } from "../cli-io.js";
import { stripControls } from "../render/terminal-text.js";

/** `mitsu skills`: what was found, where from, and every file that was skipped and why. */
export async function skillsCommand(io: PrintIo): Promise<number> {
  const trusted = await isFolderTrusted(io.cwd, { home: io.home });
  // Installed plugins' skills and commands are listed with their plugin (`plugin:name`).
  const { contributions } = await loadPlugins({ cwd: io.cwd, home: io.home });
  const result = await discoverSkills({ cwd: io.cwd, home: io.home, trusted, plugins: contributions });
  io.stdout.write(`${stripControls(formatSkillsReport(result, { cwd: io.cwd }))}
`);
  return 0;
}
