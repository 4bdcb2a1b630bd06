import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ToolContext, toToolDefinition } from "../loop/tool.js";
import { ToolState } from "../loop/tool-state.js";
import { BackgroundShells } from "./background-shells.js";
import { createBuiltinTools } from "./create-builtin-tools.js";

let base: string;
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  toolUseId: "t1",
  state: new ToolState(),
  agentPath: [],
});

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "mitsu-builtin-")));
});
afterEach(() => rm(base, { recursive: true, force: true }));

describe("createBuiltinTools", () => {
  it("each tool states its permission facts: the paths it reads or writes, or the command it runs", () => {
    const tools = Object.fromEntries(createBuiltinTools({ cwd: base }).map((tool) => [tool.name, tool]));
    const facts = (name: string, input: Record<string, unknown>) =>
      (tools[name]?.permissionFacts as ((input: unknown) => unknown) | undefined)?.(input);
    expect(facts("Read", { file_path: "a.ts" })).toEqual({ paths: [{ path: "a.ts", access: "read" }] });
    expect(facts("Write", { file_path: "a.ts", content: "" })).toEqual({
      paths: [{ path: "a.ts", access: "write" }],
    });
    expect(facts("Edit", { file_path: "a.ts" })).toEqual({ paths: [{ path: "a.ts", access: "write" }] });
    expect(facts("Bash", { command: "ls" })).toEqual({ command: "ls" });
    expect(facts("Grep", { pattern: "TODO" })).toEqual({
      paths: [{ path: ".", access: "read", folder: true }],
      display: "TODO",
    });
    expect(facts("Glob", { pattern: "*.ts", path: "src" })).toEqual({
      paths: [{ path: "src", access: "read", folder: true }],
      display: "*.ts",
    });
  });

  it("returns the seven tools with Claude Code's names and input fields", () => {
    const tools = createBuiltinTools({ cwd: base });
    expect(tools.map((tool) => tool.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "Bash",
      "Grep",
      "Glob",
      "TodoWrite",
    ]);
    const fields = Object.fromEntries(
      tools.map((tool) => [tool.name, Object.keys((tool.inputSchema as { properties: object }).properties)]),
    );
    expect(fields).toEqual({
      Read: ["file_path", "offset", "limit"],
      Write: ["file_path", "content"],
      Edit: ["file_path", "old_string", "new_string", "replace_all"],
      Bash: ["command", "timeout", "description"],
      Grep: [
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-i",
        "-n",
        "-A",
        "-B",
        "-C",
        "multiline",
        "head_limit",
      ],
      Glob: ["pattern", "path"],
      TodoWrite: ["todos"],
    });
    expect(tools.filter((tool) => tool.readOnly).map((tool) => tool.name)).toEqual([
      "Read",
      "Grep",
      "Glob",
      "TodoWrite",
    ]);
    expect(tools.filter((tool) => tool.eagerInputStreaming).map((tool) => tool.name)).toEqual([
      "Write",
      "Edit",
    ]);
    for (const tool of tools) {
      expect(tool.description.length).toBeGreaterThan(100);
      expect(typeof tool.summarize).toBe("function");
    }
    expect(toToolDefinition(tools[1]!)).toMatchObject({ name: "Write", eager_input_streaming: true });
  });

  it("adds the background, web fetch and web search tools when given what they need, in a fixed order", () => {
    const shells = new BackgroundShells({ outputDir: join(base, "shells") });
    const build = () =>
      createBuiltinTools({
        cwd: base,
        shells,
        webFetch: { complete: async () => "", fetch },
        webSearch: { search: async () => ({ text: "", sources: [], queries: [] }) },
      });
    const tools = build();
    expect(tools.map((tool) => tool.name)).toEqual([
      "Read",
      "Write",
      "Edit",
      "Bash",
      "Grep",
      "Glob",
      "TodoWrite",
      "BashOutput",
      "KillShell",
      "WebFetch",
      "WebSearch",
    ]);
    const bash = tools.find((tool) => tool.name === "Bash")!;
    expect(Object.keys((bash.inputSchema as { properties: object }).properties)).toContain(
      "run_in_background",
    );
    expect(Object.keys((tools.at(-2)!.inputSchema as { properties: object }).properties)).toEqual([
      "url",
      "prompt",
    ]);
    // Part of the cached prefix: two builds give byte-identical definitions.
    expect(JSON.stringify(build().map(toToolDefinition))).toBe(JSON.stringify(tools.map(toToolDefinition)));
  });

  it("lets Read, Grep and Glob reach read-only roots, and nothing write there", async () => {
    const skill = await mkdtemp(join(tmpdir(), "mitsu-skill-root-"));
    try {
      await writeFile(join(skill, "ref.md"), "reference");
      const tools = createBuiltinTools({ cwd: base, readOnlyRoots: { [skill]: "the skill's folder" } });
      const byName = (name: string) => tools.find((tool) => tool.name === name)!;
      expect(await byName("Read").run({ file_path: join(skill, "ref.md") }, context())).toBe(
        "     1\treference",
      );
      expect(await byName("Glob").run({ pattern: "*.md", path: skill }, context())).toContain("ref.md");
      await expect(
        byName("Write").run({ file_path: join(skill, "new.md"), content: "x" }, context()),
      ).rejects.toThrow(/outside the workspace/);
    } finally {
      await rm(skill, { recursive: true, force: true });
    }
  });

  it("lets the file tools reach additional roots", async () => {
    const extra = await mkdtemp(join(base, "extra-"));
    await writeFile(join(extra, "x.txt"), "extra");
    const [read] = createBuiltinTools({ cwd: join(base), additionalRoots: [extra] });
    expect(await read!.run({ file_path: join(extra, "x.txt") }, context())).toBe("     1\textra");
    const [readOnlyCwd] = createBuiltinTools({ cwd: join(extra) });
    await expect(readOnlyCwd!.run({ file_path: join(base, "y.txt") }, context())).rejects.toThrow(
      /Access denied/,
    );
  });
});
