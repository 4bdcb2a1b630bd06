import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { AssistantMessage, Message } from "../messages/index.js";
import { changedFilesSource } from "./changed-files-source.js";
import { dateChangeSource } from "./date-change-source.js";
import { projectInstructionsSource } from "./project-instructions-source.js";
import type { ReminderState } from "./reminder-engine.js";
import { skillsSource } from "./skills-source.js";
import { toolNudgeSource, turnsWithoutTool } from "./tool-nudge-source.js";

const state = (over: Partial<ReminderState> = {}): ReminderState => ({
  turn: 1,
  round: 1,
  messages: [],
  now: new Date(2025, 0, 1, 12),
  firstUserMessage: true,
  ...over,
});
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-src-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const assistant = (...tools: string[]): AssistantMessage => ({
  role: "assistant",
  content: tools.length
    ? tools.map((name, i) => ({ type: "tool_use" as const, id: `t${i}`, name, input: {} }))
    : [{ type: "text" as const, text: "ok" }],
});

describe("project instructions source", () => {
  it("speaks on the first call, again only when a file changes on disk", async () => {
    const cwd = tmp();
    writeFileSync(join(cwd, "AGENTS.md"), "Use pnpm.");
    const source = projectInstructionsSource({ cwd, home: join(cwd, "home") });
    const first = await source.collect(state());
    expect(first).toContain("Use pnpm.");
    expect(await source.collect(state())).toBeUndefined();

    writeFileSync(join(cwd, "AGENTS.md"), "Use npm, not pnpm.");
    const changed = await source.collect(state());
    expect(changed).toMatch(/^The project instructions changed on disk/);
    expect(changed).toContain("Use npm, not pnpm.");
    expect(await source.collect(state())).toBeUndefined();

    mkdirSync(join(cwd, "home", ".mitsu"), { recursive: true });
    writeFileSync(join(cwd, "home", ".mitsu", "AGENTS.md"), "User-wide rule.");
    expect(await source.collect(state())).toContain("User-wide rule.");

    rmSync(join(cwd, "AGENTS.md"));
    rmSync(join(cwd, "home", ".mitsu", "AGENTS.md"));
    expect(await source.collect(state())).toMatch(/removed/);
  });

  it("offers the text every turn with repeat (the engine rate-limits it)", async () => {
    const cwd = tmp();
    writeFileSync(join(cwd, "CLAUDE.md"), "Rule.");
    const source = projectInstructionsSource({ cwd, home: cwd, repeat: true });
    await source.collect(state());
    expect(await source.collect(state())).toContain("Rule.");
  });

  it("stays silent without instruction files", async () => {
    const cwd = tmp();
    expect(await projectInstructionsSource({ cwd, home: cwd }).collect(state())).toBeUndefined();
  });
});

describe("skills source", () => {
  it("returns the list the skills module renders", async () => {
    const source = skillsSource(() => "Available skills:\n- commit: Commit staged work");
    expect(await source.collect(state())).toContain("- commit:");
  });
});

describe("changed files source", () => {
  it("names each file that changed or vanished after it was Read, once per change", async () => {
    const dir = tmp();
    const a = join(dir, "a.ts");
    const b = join(dir, "b.ts");
    writeFileSync(a, "a");
    writeFileSync(b, "b");
    const read = new Date(2020, 0, 1);
    utimesSync(a, read, read);
    utimesSync(b, read, read);
    const tracked = [
      { path: a, mtimeMs: read.getTime() },
      { path: b, mtimeMs: read.getTime() },
    ];
    const source = changedFilesSource(() => tracked);
    expect(await source.collect(state())).toBeUndefined();

    utimesSync(a, new Date(2021, 0, 1), new Date(2021, 0, 1));
    const text = await source.collect(state());
    expect(text).toContain(`- ${a}`);
    expect(text).not.toContain(b);
    expect(await source.collect(state())).toBeUndefined();

    rmSync(b);
    utimesSync(a, new Date(2022, 0, 1), new Date(2022, 0, 1));
    const again = await source.collect(state());
    expect(again).toContain(`no longer exist:\n- ${b}`);
    expect(again).toContain(`- ${a}`);
  });
});

describe("tool nudge source", () => {
  it("counts assistant turns since the tool was last called", () => {
    const messages: Message[] = [assistant("TodoWrite"), assistant("Read"), assistant()];
    expect(turnsWithoutTool(messages, "TodoWrite")).toBe(2);
    expect(turnsWithoutTool(messages, "Task")).toBe(3);
  });

  it("speaks after N turns without the tool", async () => {
    const source = toolNudgeSource({ toolName: "TodoWrite", afterTurns: 3 });
    expect(source.name).toBe("nudge:TodoWrite");
    const two: Message[] = [assistant("TodoWrite"), assistant("Read"), assistant("Bash")];
    expect(await source.collect(state({ messages: two }))).toBeUndefined();
    const three = [...two, assistant("Edit")];
    expect(await source.collect(state({ messages: three }))).toMatch(/TodoWrite tool has not been used/);
  });
});

describe("date change source", () => {
  it("says the new date once when the day changes", async () => {
    const source = dateChangeSource({ start: new Date(2025, 0, 1, 23, 50) });
    expect(await source.collect(state({ now: new Date(2025, 0, 1, 23, 59) }))).toBeUndefined();
    expect(await source.collect(state({ now: new Date(2025, 0, 2, 0, 1) }))).toContain("2025-01-02");
    expect(await source.collect(state({ now: new Date(2025, 0, 2, 9) }))).toBeUndefined();
  });
});
