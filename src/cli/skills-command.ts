import { discoverSkills, formatSkillsReport } from "../skills/index.js";
import type { PrintIo } from "./print-mode.js";
import { stripControls } from "./terminal-text.js";

/** `mitsu skills`: what was found, where from, and every file that was skipped and why. */
export async function skillsCommand(io: PrintIo): Promise<number> {
  const result = await discoverSkills({ cwd: io.cwd, home: io.home });
  io.stdout.write(`${stripControls(formatSkillsReport(result, { cwd: io.cwd }))}\n`);
  return 0;
}
