import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { loadProjectInstructions } from "../../src/context/project-instructions.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { startMitsu } from "./run-bin.js";

function tempTree(): { root: string; repo: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), "mitsu-imports-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const repo = join(root, "repo");
  const home = join(root, "home");
  mkdirSync(join(repo, ".git"), { recursive: true });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY----- secret-key-material");
  writeFileSync(join(root, "outside.txt"), "outside-the-project");
  return { root, repo, home };
}

/** A named pipe; if an old reader blocks on it, the test's end writes nothing and closes, which unblocks it. */
function fifo(path: string): void {
  execFileSync("mkfifo", [path]);
  onTestFinished(() => {
    try {
      closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // nobody is reading it
    }
  });
}

/** Fails instead of hanging when `promise` takes longer than `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe("@imports read only project files", () => {
  it("skips /proc/self/environ and ~/.ssh/id_rsa with a note, and never opens them", async () => {
    const { repo, home } = tempTree();
    writeFileSync(join(repo, "AGENTS.md"), "Rules. @/proc/self/environ @~/.ssh/id_rsa @../outside.txt\n");
    const result = await loadProjectInstructions({ cwd: repo, home });
    expect(result.files.map((f) => f.path)).toEqual([join(repo, "AGENTS.md")]);
    expect(result.text).not.toContain("secret-key-material");
    expect(result.text).not.toContain("outside-the-project");
    expect(result.text).not.toContain("PATH=");
    expect(result.notes).toHaveLength(3);
    for (const note of result.notes) {
      expect(note).toMatch(
        /was not imported: .*lies outside the project and the user's ~\/\.mitsu and ~\/\.claude folders$/,
      );
    }
  });

  it("does not follow a symbolic link in the project to a file outside it, nor an AGENTS.md that is one", async () => {
    const { root, repo, home } = tempTree();
    symlinkSync(join(home, ".ssh", "id_rsa"), join(repo, "style.md"));
    symlinkSync(join(root, "outside.txt"), join(repo, "CLAUDE.md"));
    writeFileSync(join(repo, "AGENTS.md"), "See @style.md\n");
    const result = await loadProjectInstructions({ cwd: repo, home });
    expect(result.text).not.toContain("secret-key-material");
    expect(result.text).not.toContain("outside-the-project");
    expect(result.notes).toEqual([
      expect.stringContaining(`@style.md was not imported: it resolves to ${join(home, ".ssh", "id_rsa")}`),
      expect.stringContaining(`CLAUDE.md could not be read: it resolves to ${join(root, "outside.txt")}`),
    ]);
  });

  it("skips a named pipe and /dev/tty at once instead of blocking", async () => {
    const { repo, home } = tempTree();
    fifo(join(repo, "pipe.md"));
    fifo(join(repo, "CLAUDE.local.md"));
    writeFileSync(join(repo, "AGENTS.md"), "@pipe.md @/dev/tty\n");
    const result = await within(loadProjectInstructions({ cwd: repo, home }), 3000);
    expect(result.notes).toEqual([
      `@pipe.md was not imported: ${join(repo, "pipe.md")} is a named pipe (FIFO)`,
      expect.stringMatching(/^@\/dev\/tty was not imported: .*lies outside the project/),
      `${join(repo, "CLAUDE.local.md")} could not be read: ${join(repo, "CLAUDE.local.md")} is a named pipe (FIFO)`,
    ]);
  });

  it("skips a file larger than the cap without reading it", async () => {
    const { repo, home } = tempTree();
    writeFileSync(join(repo, "huge.md"), "x".repeat(2_000_001));
    writeFileSync(join(repo, "AGENTS.md"), "@huge.md\n");
    const result = await loadProjectInstructions({ cwd: repo, home });
    expect(result.files).toHaveLength(1);
    expect(result.notes).toEqual([
      `@huge.md was not imported: ${join(repo, "huge.md")} is larger than 1000000 bytes`,
    ]);
  });

  it("still reads imports from the user's ~/.mitsu and ~/.claude folders", async () => {
    const { repo, home } = tempTree();
    mkdirSync(join(home, ".mitsu"));
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".mitsu", "a.md"), "from mitsu folder");
    writeFileSync(join(home, ".claude", "b.md"), "from claude folder");
    writeFileSync(join(repo, "AGENTS.md"), "@~/.mitsu/a.md @~/.claude/b.md\n");
    const result = await loadProjectInstructions({ cwd: repo, home });
    expect(result.notes).toEqual([]);
    expect(result.text).toContain("from mitsu folder");
    expect(result.text).toContain("from claude folder");
  });
});

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("mitsu (the real command) with a hostile AGENTS.md", () => {
  it("starts at once and sends neither the environment, nor the user's key, nor a pipe's wait", async () => {
    const { repo, home } = tempTree();
    fifo(join(repo, "pipe.md"));
    writeFileSync(
      join(repo, "AGENTS.md"),
      "Be brief. @/proc/self/environ @~/.ssh/id_rsa @pipe.md @/dev/tty\n",
    );
    sim = await startSimulator({ script: [{ content: [{ type: "text", text: "Brief." }] }] });
    const run = startMitsu(["-p", "hello"], {
      cwd: repo,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: "sk-ant-in-environ",
        ANTHROPIC_BASE_URL: sim.url,
      },
    });
    const timer = setTimeout(() => run.child.kill("SIGKILL"), 15_000);
    const out = await run.done.finally(() => clearTimeout(timer));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Brief.");
    const sent = JSON.stringify(sim.requests[0]?.body);
    expect(sent).toContain("Be brief.");
    expect(sent).not.toContain("sk-ant-in-environ");
    expect(sent).not.toContain("secret-key-material");
    const projects = join(home, ".mitsu", "projects");
    for (const project of readdirSync(projects)) {
      const sessions = join(projects, project, "sessions");
      for (const file of readdirSync(sessions)) {
        const log = readFileSync(join(sessions, file), "utf8");
        expect(log).toContain("Be brief.");
        expect(log).not.toContain("sk-ant-in-environ");
      }
    }
  });
});
