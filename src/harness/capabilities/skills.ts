import { realpath } from "node:fs/promises";
import type { Tool } from "../../loop/tool.js";
import type { InlineCapabilities } from "../../skills/index.js";
import { createSkillTool, type DiscoverResult, type InlineRun } from "../../skills/index.js";
import type { Capability } from "../capability.js";

/** The skills: the Skill tool, and the folders of the user's and shipped skills, which Read may open. */
export interface SkillsCapability extends Capability {
  /** The user's and shipped skills' folders (real paths), found at start-up. */
  readonly readOnlyRoots: Record<string, string>;
}

/** `inline` is called at run time, once the permission checker exists. */
export function skillsCapability(
  catalog: DiscoverResult,
  inline: (run: InlineRun) => InlineCapabilities,
): SkillsCapability {
  let roots: Record<string, string> = {};
  const tool = createSkillTool(() => catalog.skills, { inline }) as unknown as Tool<never>;
  return {
    name: "skills",
    get readOnlyRoots() {
      return roots;
    },
    async start() {
      roots = await skillFolders(catalog);
    },
    tools: [tool],
  };
}

/**
 * The folders of the user's and the shipped skills (real paths), readable by Read, Grep and Glob so the model can
 * open the `references/` and `scripts/` their instructions list; project skills are in the workspace already.
 */
async function skillFolders(catalog: DiscoverResult): Promise<Record<string, string>> {
  const folders: Record<string, string> = {};
  for (const skill of catalog.skills) {
    if (skill.source === "project") continue;
    const real = await realpath(skill.dir).catch(() => undefined);
    if (real) folders[real] = `the ${skill.name} skill's folder (read-only)`;
  }
  return folders;
}
