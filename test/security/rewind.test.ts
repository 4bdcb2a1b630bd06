import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { confirmForeignSession } from "../../src/cli/tui/confirm-foreign-session.js";
import { rewind as rewindCommand } from "../../src/cli/tui/rewind-command.js";
import type { CodingAgent, CodingAgentOptions } from "../../src/harness/index.js";
import { createCodingAgent } from "../../src/harness/index.js";
import type { AgentEvent, AgentResult } from "../../src/loop/agent-event.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import type { ScriptEntry } from "../../src/simulator/types.js";

// Issue 21, item 3: a repository shipped docs/session.jsonl and its .checkpoints; `mitsu -r docs/session.jsonl`,
// `/rewind`, yes: a file outside the workspace was overwritten with the repository's content and another deleted,
// the paths shown only afterwards. Restore also followed symbolic links.

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  for (;;) if ((await run.next()).done) return;
}

const say = (text: string): ScriptEntry => ({ content: [{ type: "text", text }] });
const read = (file_path: string): ScriptEntry => ({
  content: [{ type: "tool_use", name: "Read", input: { file_path } }],
});
const write = (file_path: string, content: string): ScriptEntry => ({
  content: [{ type: "tool_use", name: "Write", input: { file_path, content } }],
});

async function setup(script: ScriptEntry[]) {
  sim = await startSimulator({ script });
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mitsu-rewind-attack-")));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  const outside = join(root, "outside");
  for (const dir of [cwd, home, outside]) mkdirSync(dir, { recursive: true });
  const warnings: string[] = [];
  const options: CodingAgentOptions = {
    cwd,
    home,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    model: "anthropic:claude-sonnet-4-5",
    permissionMode: "bypassPermissions",
    onWarning: (m) => warnings.push(m),
  };
  return { root, cwd, home, outside, options, warnings };
}

describe("a session file shipped by a repository", () => {
  it("is resumed with a notice naming it, and its checkpoints write and delete nothing", async () => {
    const { cwd, outside, options, warnings } = await setup([say("hi"), say("again")]);
    // The repository's session: a real one, moved into the repository with hand-made checkpoints beside it.
    const first = await createCodingAgent(options);
    await drain(first.prompt("hello"));
    const made = first.sessionPath!;
    await first.close();
    mkdirSync(join(cwd, "docs", "session.checkpoints"), { recursive: true });
    copyFileSync(made, join(cwd, "docs", "session.jsonl"));
    unlinkSync(made);
    const victim = join(outside, "victim.txt");
    const doomed = join(outside, "doomed.txt");
    writeFileSync(victim, "the user's\n");
    writeFileSync(doomed, "the user's too\n");
    writeFileSync(join(cwd, "docs", "session.checkpoints", "0.bin"), "the repository's\n");
    writeFileSync(
      join(cwd, "docs", "session.checkpoints", "index.json"),
      JSON.stringify([
        { prompt: 0, path: victim, existed: true, blob: "0.bin", bytes: 17 },
        { prompt: 0, path: doomed, existed: false, bytes: 0 },
        { prompt: 0, path: join(cwd, ".git", "config"), existed: true, blob: "0.bin", bytes: 17 },
      ]),
    );

    const agent = await createCodingAgent({ ...options, session: { resume: "docs/session.jsonl" } });
    expect(warnings.join("\n")).toContain(join(cwd, "docs", "session.jsonl"));
    const [point] = agent.rewindPoints();
    expect(agent.rewindPreview(point!.index)).toEqual([]);
    agent.rewind(point!.index, { restoreFiles: true });
    await agent.close();
    expect(readFileSync(victim, "utf8")).toBe("the user's\n");
    expect(existsSync(doomed)).toBe(true);
    expect(existsSync(join(cwd, ".git", "config"))).toBe(false);
  });

  it("at the terminal, is resumed only after saying where it came from and asking", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "mitsu-rewind-ask-")));
    dirs.push(root);
    const said: string[] = [];
    const asked = (answer: string) => ({
      cwd: join(root, "ws"),
      home: join(root, "home"),
      input: {
        read: async (prompt: string) => {
          said.push(`? ${prompt}`);
          return answer;
        },
      } as never,
      write: (text: string) => said.push(text),
      style: { yellow: (s: string) => s } as never,
    });
    expect(await confirmForeignSession("docs/session.jsonl", asked("n"))).toBe(false);
    expect(said[0]).toContain(join(root, "ws", "docs", "session.jsonl"));
    expect(said[1]).toMatch(/^\? resume it\?/);
    expect(await confirmForeignSession("docs/session.jsonl", asked("y"))).toBe(true);
    said.length = 0;
    const own = join(root, "home", ".mitsu", "projects", "p", "sessions", "s.jsonl");
    expect(await confirmForeignSession(own, asked("n"))).toBe(true);
    expect(said).toEqual([]);
  });
});

describe("restoring a session's own checkpoints", () => {
  it("restores only inside the workspace, follows no symbolic link, and lists every file before asking", async () => {
    const { cwd, outside, options } = await setup([
      read("a.txt"),
      write("a.txt", "model's a\n"),
      write("sub/b.txt", "model's b\n"),
      say("done"),
    ]);
    writeFileSync(join(cwd, "a.txt"), "orig a\n");
    mkdirSync(join(cwd, "sub"));
    const agent = await createCodingAgent(options);
    await drain(agent.prompt("write things"));
    // Between the change and the rewind, a.txt became a link out, and so did the folder sub.
    const victim = join(outside, "victim.txt");
    writeFileSync(victim, "the user's\n");
    unlinkSync(join(cwd, "a.txt"));
    symlinkSync(victim, join(cwd, "a.txt"));
    mkdirSync(join(outside, "sub"));
    writeFileSync(join(outside, "sub", "b.txt"), "the user's b\n");
    rmSync(join(cwd, "sub"), { recursive: true });
    symlinkSync(join(outside, "sub"), join(cwd, "sub"));

    const [point] = agent.rewindPoints();
    const preview = agent.rewindPreview(point!.index);
    expect(preview.map((file) => file.path).sort()).toEqual(
      [join(cwd, "a.txt"), join(cwd, "sub", "b.txt")].sort(),
    );
    expect(preview.map((file) => file.refused)).toEqual([
      expect.stringMatching(/symbolic link/),
      expect.stringMatching(/symbolic link/),
    ]);

    const result = agent.rewind(point!.index, { restoreFiles: true });
    await agent.close();
    expect(result.restored).toEqual([]);
    expect(result.notRestored.map((n) => n.path).sort()).toEqual(preview.map((f) => f.path).sort());
    expect(readFileSync(victim, "utf8")).toBe("the user's\n");
    expect(readFileSync(join(outside, "sub", "b.txt"), "utf8")).toBe("the user's b\n");
  });

  it("restores nothing outside the workspace of the session now running (a folder added then, not now)", async () => {
    const { outside, options } = await setup([write("../outside/c.txt", "model's c\n"), say("done")]);
    const first = await createCodingAgent({ ...options, addDirs: [outside] });
    await drain(first.prompt("write outside"));
    expect(readFileSync(join(outside, "c.txt"), "utf8")).toBe("model's c\n");
    const path = first.sessionPath!;
    await first.close();
    writeFileSync(join(outside, "c.txt"), "the user's c\n");
    const agent = await createCodingAgent({ ...options, session: { resume: path } });
    const [point] = agent.rewindPoints();
    expect(agent.rewindPreview(point!.index)).toEqual([
      { path: join(outside, "c.txt"), action: "delete", refused: "outside the workspace" },
    ]);
    const result = agent.rewind(point!.index, { restoreFiles: true });
    await agent.close();
    expect(result.notRestored).toEqual([{ path: join(outside, "c.txt"), why: "outside the workspace" }]);
    expect(readFileSync(join(outside, "c.txt"), "utf8")).toBe("the user's c\n");
  });

  it("/rewind shows the files to be written or deleted before it asks", async () => {
    const said: string[] = [];
    const answers = ["1", "n"];
    const agent = {
      rewindPoints: () => [{ index: 0, firstLine: "write things" }],
      rewindPreview: () => [
        { path: "/w/a.txt", action: "restore" },
        { path: "/w/new.txt", action: "delete" },
        { path: "/elsewhere/x", action: "restore", refused: "outside the workspace" },
      ],
      rewind: () => ({ restored: [], notRestored: [] }),
    } as unknown as CodingAgent;
    const plain = (s: string) => s;
    await rewindCommand(agent, {
      input: {
        read: async (prompt: string) => {
          said.push(`? ${prompt}`);
          return answers.shift();
        },
      } as never,
      write: (text) => said.push(text),
      style: { dim: plain, red: plain, yellow: plain, bold: plain } as never,
    });
    const question = said.findIndex((line) => line.includes("restore the files"));
    const before = said.slice(0, question).join("");
    expect(before).toContain("/w/a.txt");
    expect(before).toContain("/w/new.txt");
    expect(before).toMatch(/\/elsewhere\/x.*outside the workspace/);
  });
});
