import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUILTIN_AGENTS } from "./builtin-agents.js";
import { formatAgentsReport } from "./format-agents-report.js";
import { loadAgentDefinitions } from "./load-agent-definitions.js";
import { createTaskTool } from "./task-tool.js";

let root: string;
let cwd: string;
let home: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "mitsu-agent-files-"));
  cwd = join(root, "project");
  home = join(root, "home");
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function files(map: Record<string, string>) {
  for (const [path, text] of Object.entries(map)) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
  }
}

describe("loadAgentDefinitions", () => {
  it("reads subfolders, drops tools mitsu has not (the agent keeps the rest), reads tools: * and Agent(…)", async () => {
    const explorer = join(cwd, ".claude/agents/feature/code-explorer.md");
    await files({
      // The shape of anthropics/claude-code's feature-dev agents: Claude Code tool names mitsu partly lacks.
      [explorer]:
        "---\nname: code-explorer\ndescription: Deeply analyzes existing codebase features\ntools: Glob, Grep, LS, Read, NotebookRead, WebFetch, TodoWrite, WebSearch, KillShell, BashOutput, ExitPlanMode\nmodel: sonnet\ncolor: yellow\n---\n\nYou are an expert code analyst.\n",
      [join(cwd, ".claude/agents/deep/er/all.md")]:
        "---\nname: all-tools\ndescription: Everything\ntools: '*'\n---\nDo it.\n",
      [join(cwd, ".claude/agents/lead.md")]:
        "---\nname: lead\ndescription: Delegates\ntools: Agent(worker, researcher), Read, Bash(git log:*)\nmodel: opusplan\n---\nLead.\n",
      [join(cwd, ".claude/agents/odd.md")]:
        "---\nname: odd\ndescription: Odd model\nmodel: Claude Opus Latest\n---\nOdd.\n",
    });
    const loaded = await loadAgentDefinitions({ cwd, home, builtins: [], trusted: true });
    const byName = (name: string) => loaded.agents.find((a) => a.name === name);
    expect(byName("code-explorer")?.tools).toEqual([
      "Glob",
      "Grep",
      "Read",
      "WebFetch",
      "TodoWrite",
      "WebSearch",
      "KillShell",
      "BashOutput",
    ]);
    expect(byName("code-explorer")?.model).toBe("sonnet");
    expect(byName("all-tools")?.tools).toBeUndefined();
    expect(byName("lead")?.tools).toEqual(["Task", "Read", "Bash"]);
    expect(byName("lead")?.model).toBe("opusplan");
    expect(byName("odd")?.model).toBeUndefined();
    expect(loaded.warnings).toEqual([
      {
        path: explorer,
        field: "tools",
        message: '"ExitPlanMode" is not a tool mitsu has; left out',
        skipped: false,
      },
      {
        path: join(cwd, ".claude/agents/odd.md"),
        field: "model",
        message: '"Claude Opus Latest" is not a model name; the agent uses its parent\'s model',
        skipped: false,
      },
    ]);
  });

  it("in an untrusted folder, a project agent file cannot choose another provider's model (it inherits); aliases and the user's own files still can", async () => {
    await files({
      [join(cwd, ".claude/agents/exfil.md")]:
        "---\nname: exfil\ndescription: Reads everything\nmodel: openai:gpt-5\n---\nRead all files.\n",
      [join(cwd, ".claude/agents/quick.md")]:
        "---\nname: quick\ndescription: Fast\nmodel: haiku\n---\nBe quick.\n",
      [join(home, ".mitsu/agents/mine.md")]:
        "---\nname: mine\ndescription: Mine\nmodel: gemini:gemini-2.5-pro\n---\nMine.\n",
    });
    const untrusted = await loadAgentDefinitions({ cwd, home });
    const byName = (name: string) => untrusted.agents.find((a) => a.name === name);
    expect(byName("exfil")).toBeDefined();
    expect(byName("exfil")?.model).toBeUndefined();
    expect(byName("quick")?.model).toBe("haiku");
    expect(byName("mine")?.model).toBe("gemini:gemini-2.5-pro");
    expect(untrusted.ignored).toEqual([
      `agent "exfil" model "openai:gpt-5" in ${join(cwd, ".claude/agents/exfil.md")}`,
    ]);
    expect(formatAgentsReport(untrusted, { cwd })).toContain("Ignored, as this folder is not trusted");
    const trusted = await loadAgentDefinitions({ cwd, home, trusted: true });
    expect(trusted.agents.find((a) => a.name === "exfil")?.model).toBe("openai:gpt-5");
    expect(trusted.ignored).toEqual([]);
  });

  it("reads Claude Code agent files unchanged: tools as a comma list or a YAML list, model, the body as prompt", async () => {
    await files({
      [join(cwd, ".claude/agents/reviewer.md")]:
        "---\nname: code-reviewer\ndescription: Use when: code was just changed\ntools: Read, Grep, Glob\nmodel: haiku\ncolor: blue\n---\n\nYou review code.\n",
      [join(cwd, ".mitsu/agents/tester.md")]:
        "---\nname: tester\ndescription: Runs the tests\ntools:\n  - Bash\n  - Read\nmodel: openai:gpt-5\n---\nYou run tests.\n",
      [join(home, ".claude/agents/helper.md")]: "---\nname: helper\ndescription: Helps\n---\nYou help.\n",
    });
    const { agents, warnings } = await loadAgentDefinitions({ cwd, home, trusted: true });
    expect(agents.map((a) => `${a.name}:${a.source}`)).toEqual([
      "Explore:builtin",
      "Plan:builtin",
      "code-reviewer:project",
      "general-purpose:builtin",
      "helper:user",
      "tester:project",
    ]);
    const reviewer = agents.find((a) => a.name === "code-reviewer")!;
    expect(reviewer).toMatchObject({
      description: "Use when: code was just changed",
      tools: ["Read", "Grep", "Glob"],
      model: "haiku",
      prompt: "You review code.",
    });
    expect(agents.find((a) => a.name === "tester")).toMatchObject({
      tools: ["Bash", "Read"],
      model: "openai:gpt-5",
    });
    expect(agents.find((a) => a.name === "helper")?.tools).toBeUndefined();
    // The unquoted `description: Use when: …` loads, with a notice.
    expect(warnings).toEqual([expect.objectContaining({ field: "description", skipped: false })]);
  });

  it("project beats user beats built-in, with a notice; a bad file gets one warning naming the file and field, the rest load", async () => {
    await files({
      [join(cwd, ".mitsu/agents/explore.md")]:
        "---\nname: Explore\ndescription: Project explore\n---\nMine.\n",
      [join(home, ".mitsu/agents/explore.md")]:
        "---\nname: Explore\ndescription: User explore\n---\nTheirs.\n",
      [join(cwd, ".claude/agents/no-desc.md")]: "---\nname: nodesc\n---\nBody.\n",
      [join(cwd, ".claude/agents/bad-yaml.md")]: "---\nname: [unclosed\ndescription: x\n---\nBody.\n",
      [join(cwd, ".claude/agents/bad-tools.md")]:
        "---\nname: badtools\ndescription: x\ntools: {a: 1}\n---\nBody.\n",
      [join(cwd, ".claude/agents/no-front.md")]: "Just text.\n",
      [join(cwd, ".claude/agents/ok.md")]: "---\nname: ok\ndescription: fine\n---\nBody.\n",
      [join(cwd, ".claude/agents/notes.txt")]: "ignored",
    });
    const { agents, warnings } = await loadAgentDefinitions({ cwd, home });
    expect(agents.find((a) => a.name === "Explore")).toMatchObject({ source: "project", prompt: "Mine." });
    expect(agents.map((a) => a.name)).toContain("ok");
    const byFile = warnings.map(
      (w) => `${w.path.startsWith(root) ? w.path.slice(root.length) : w.path} ${w.field} ${w.skipped}`,
    );
    expect(byFile).toEqual(
      expect.arrayContaining([
        "/project/.claude/agents/bad-tools.md tools true",
        "/project/.claude/agents/bad-yaml.md description true",
        "/project/.claude/agents/no-desc.md description true",
        "/project/.claude/agents/no-front.md frontmatter true",
        "/home/.mitsu/agents/explore.md name true",
        "(built-in Explore) name true",
      ]),
    );
    expect(warnings).toHaveLength(6);
    const report = formatAgentsReport({ agents, warnings }, { cwd, toolNames: ["Read", "Bash"] });
    expect(report).toContain("Explore  [project]  .mitsu/agents/explore.md");
    expect(report).toContain(".claude/agents/no-desc.md: description: is required");
    expect(report).toContain("Skipped (6):");
  });

  it("the Task tool's description lists the agents in a fixed order, the same bytes on every load", async () => {
    await files({
      [join(cwd, ".mitsu/agents/b.md")]: "---\nname: zeta\ndescription: Z\n---\nZ.\n",
      [join(cwd, ".mitsu/agents/a.md")]: "---\nname: alpha\ndescription: A\n---\nA.\n",
    });
    const first = createTaskTool({ agents: (await loadAgentDefinitions({ cwd, home })).agents });
    const second = createTaskTool({ agents: (await loadAgentDefinitions({ cwd, home })).agents });
    expect(JSON.stringify(first.inputSchema) + first.description).toBe(
      JSON.stringify(second.inputSchema) + second.description,
    );
    const list = first.description.split("\n").filter((l) => l.startsWith("- ") && l.includes(": "));
    expect(list.slice(0, 5)).toEqual([
      `- Explore: ${BUILTIN_AGENTS[1]!.description}`,
      `- Plan: ${BUILTIN_AGENTS[2]!.description}`,
      "- alpha: A",
      `- general-purpose: ${BUILTIN_AGENTS[0]!.description}`,
      "- zeta: Z",
    ]);
    expect(first.description).toContain("sees nothing of this conversation");
  });
});
