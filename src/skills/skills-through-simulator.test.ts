import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentToEnd } from "../loop/run-agent.js";
import { ToolState } from "../loop/tool-state.js";
import { createAnthropicProvider } from "../providers/anthropic/anthropic-provider.js";
import { startSimulator } from "../simulator/index.js";
import type { Simulator } from "../simulator/types.js";
import { activeAllowedTools } from "./active-skills.js";
import { discoverSkills } from "./discover-skills.js";
import { expandInvocation, findSlashTarget, parseSlash } from "./expand-command.js";
import { createSkillTool } from "./skill-tool.js";
import { renderSkillsList } from "./skills-reminder.js";

// Both ways in, end to end: files on disk → discovery → the real Anthropic adapter → the loopback simulator.
let root: string;
let sim: Simulator;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "mitsu-skills-sim-"));
  const files: Record<string, string> = {
    ".claude/commands/deploy.md": "---\r\ndescription: Deploy\r\n---\r\nDeploy to $0 and report the URL.\r\n",
    ".mitsu/skills/release/SKILL.md":
      "\uFEFF---\nname: release\ndescription: >\n  Cut a release\n  of the package.\nallowed-tools: Bash(git tag:*)\nowner: team\n---\nRelease $ARGUMENTS.\n",
    ".mitsu/skills/release/scripts/tag.sh": "git tag",
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  sim = await startSimulator();
});
afterEach(async () => {
  await sim.close();
  await rm(root, { recursive: true, force: true });
});

const provider = () => createAnthropicProvider({ apiKey: "test", baseURL: sim.url });

describe("skills through the simulator", () => {
  it("expands /deploy stg on the client: one request, whose user message is the expanded body", async () => {
    const catalog = await discoverSkills({
      cwd: root,
      home: join(root, "home"),
      builtinDir: null,
      trusted: true,
    });
    const slash = parseSlash("/deploy stg")!;
    const target = findSlashTarget(slash.name, catalog)!;
    const text = expandInvocation(target, slash.args);
    expect(text).toBe("Deploy to stg and report the URL.");

    sim.enqueue({ content: [{ type: "text", text: "Deployed: https://stg.example.com" }] });
    const result = await runAgentToEnd({
      provider: provider(),
      model: "claude-sonnet-4-5",
      messages: [{ role: "user", content: [{ type: "text", text }] }],
    });
    expect(result.reason).toBe("end_turn");
    expect(sim.requests).toHaveLength(1);
    expect(sim.requests[0]!.body.messages).toEqual([{ role: "user", content: [{ type: "text", text }] }]);
  });

  it("lets the model load a skill with the Skill tool: the body and folder arrive as the tool result", async () => {
    const catalog = await discoverSkills({
      cwd: root,
      home: join(root, "home"),
      builtinDir: null,
      trusted: true,
    });
    const list = renderSkillsList(catalog.skills);
    expect(list).toContain("- release: Cut a release of the package.");
    const skillTool = createSkillTool(() => catalog.skills);

    sim.enqueue(
      {
        content: [
          { type: "tool_use", id: "toolu_1", name: "Skill", input: { skill: "release", args: "1.2.0" } },
        ],
      },
      { content: [{ type: "text", text: "Released." }] },
    );
    const toolState = new ToolState();
    const result = await runAgentToEnd({
      provider: provider(),
      model: "claude-sonnet-4-5",
      tools: [skillTool],
      toolState,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: `<system-reminder>\n${list}\n</system-reminder>` },
            { type: "text", text: "Please release 1.2.0" },
          ],
        },
      ],
    });
    expect(result.reason).toBe("end_turn");
    expect(sim.requests).toHaveLength(2);
    expect(sim.requests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(["Skill"]);
    const answer = sim.requests[1]!.body.messages.at(-1);
    const toolResult = answer.content.find((block: { type: string }) => block.type === "tool_result");
    const resultText = JSON.stringify(toolResult.content);
    expect(toolResult.is_error ?? false).toBe(false);
    expect(resultText).toContain(`Base directory for this skill: ${join(root, ".mitsu/skills/release")}`);
    expect(resultText).toContain("- scripts/tag.sh");
    expect(resultText).toContain("Release 1.2.0.");
    expect(resultText).not.toContain("git tag");
    expect(activeAllowedTools(toolState)).toEqual(["Bash(git tag:*)"]);
  });
});
