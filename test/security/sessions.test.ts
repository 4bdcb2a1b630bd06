import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { legacyProjectDir, memoryDir, projectDir } from "../../src/context/index.js";
import { loadSession, lockSession, SessionLog } from "../../src/session/index.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runMitsu, tempWorkspace } from "../cli/cli-harness.js";
import { startMitsu } from "./run-bin.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

async function simulator(options: Parameters<typeof startSimulator>[0]) {
  sim = await startSimulator(options);
  return { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
}

function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => join(dir, name));
}

/** Lines of a session file. */
const jsonl = (lines: unknown[]) => `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;

const sessions = (where: { cwd: string; home: string }) => join(projectDir(where), "sessions");

/** The user texts of a request, in order. */
function userTexts(request: {
  body: { messages: Array<{ role: string; content: Array<{ text?: string }> }> };
}) {
  return request.body.messages.filter((m) => m.role === "user").map((m) => m.content.at(-1)?.text ?? "");
}

describe("session files", () => {
  it("are 0600 in 0700 folders, and an older, readable one is tightened when continued", async () => {
    const env = await simulator({ script: [text("one"), text("two")] });
    const { cwd, home } = tempWorkspace();
    expect((await runMitsu(["-p", "hi"], { cwd, home, env })).code).toBe(0);
    const [file] = sessionFiles(sessions({ cwd, home }));
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(sessions({ cwd, home })).mode & 0o777).toBe(0o700);
    expect(statSync(projectDir({ cwd, home })).mode & 0o777).toBe(0o700);
    chmodSync(file!, 0o644);
    chmodSync(sessions({ cwd, home }), 0o755);
    expect((await runMitsu(["-p", "-c", "again"], { cwd, home, env })).code).toBe(0);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(statSync(sessions({ cwd, home })).mode & 0o777).toBe(0o700);
  });

  it("name the line and what is wrong with it when a line is valid JSON of the wrong shape", async () => {
    const { cwd, home } = tempWorkspace();
    const file = join(cwd, "bad.jsonl");
    const header = {
      type: "session",
      version: 1,
      id: "x",
      cwd,
      model: "anthropic:m",
      createdAt: "2026-01-01T00:00:00Z",
    };
    const good = { type: "message", message: { role: "user", content: [{ type: "text", text: "hi" }] } };
    const cases: Array<[unknown, string]> = [
      [
        { type: "message", message: { role: "user", content: "hi" } },
        'is a message whose "content" is not an array',
      ],
      [{ type: "message", message: { role: "system", content: [] } }, 'is a message whose "role" is neither'],
      [
        { type: "message", message: { role: "assistant", content: [{ type: "tool_use", id: 1 }] } },
        'is a message whose content[0] (tool_use) has no string "id"',
      ],
      [
        { type: "message", message: { role: "user", content: [{ type: "text" }] } },
        'is a message whose content[0] (text) has no string "text"',
      ],
      [{ type: "message" }, 'is a message line without a "message" object'],
      [[1, 2], "is not a JSON object"],
    ];
    for (const [line, problem] of cases) {
      writeFileSync(file, jsonl([header, good, line]));
      const out = await runMitsu(["-p", "-r", file, "more"], { cwd, home, env: { ANTHROPIC_API_KEY: "k" } });
      expect(out.code).toBe(1);
      expect(out.stderr).toContain(`Session ${file} line 3 ${problem}`);
    }
    writeFileSync(file, `${JSON.stringify({ ...header, id: 7 })}\n`);
    const out = await runMitsu(["-p", "-r", file, "more"], { cwd, home, env: { ANTHROPIC_API_KEY: "k" } });
    expect(out.stderr).toContain(`Session ${file} line 1 is a session header without a string "id"`);
  });
});

describe("project folders", () => {
  it("are unique: /x/p-q and /x/p/q no longer share sessions (or memory)", async () => {
    const env = await simulator({ script: [text("first project"), text("second project")] });
    const { root, home } = tempWorkspace({ empty: true });
    const a = join(root, "p-q");
    const b = join(root, "p", "q");
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    expect(memoryDir({ cwd: a, home })).not.toBe(memoryDir({ cwd: b, home }));
    expect((await runMitsu(["-p", "in p-q"], { cwd: a, home, env })).code).toBe(0);
    const out = await runMitsu(["-p", "-c", "in p/q"], { cwd: b, home, env });
    expect(out.code).toBe(0);
    expect(out.stderr).toContain("no earlier session in this folder");
    expect(userTexts(sim!.requests[1]!)).toEqual(["in p/q"]);
  });

  it("still find sessions and memory stored under the old name, and skip the colliding project's", async () => {
    const env = await simulator({ script: [text("continued")] });
    const { root, home } = tempWorkspace({ empty: true });
    const cwd = join(root, "p-q");
    const other = join(root, "p", "q");
    mkdirSync(cwd, { recursive: true });
    const old = legacyProjectDir({ cwd, home });
    expect(old).toBe(legacyProjectDir({ cwd: other, home })); // the collision itself
    mkdirSync(join(old, "sessions"), { recursive: true });
    mkdirSync(join(old, "memory"));
    writeFileSync(join(old, "memory", "MEMORY.md"), "- remembered before the upgrade\n");
    const header = (dir: string, id: string) => ({
      type: "session",
      version: 1,
      id,
      cwd: dir,
      model: "anthropic:m",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    const message = (t: string) => ({
      type: "message",
      message: { role: "user", content: [{ type: "text", text: t }] },
    });
    const reply = (t: string) => ({
      type: "message",
      message: { role: "assistant", content: [{ type: "text", text: t }] },
    });
    const mine = join(old, "sessions", "2026-01-01T00-00-00-aaaaaaaa.jsonl");
    const theirs = join(old, "sessions", "2026-01-02T00-00-00-bbbbbbbb.jsonl");
    writeFileSync(mine, jsonl([header(cwd, "mine"), message("my old question"), reply("my old answer")]));
    writeFileSync(theirs, jsonl([header(other, "theirs"), message("their question"), reply("their answer")]));
    const before = readFileSync(mine, "utf8");

    const out = await runMitsu(["-p", "-c", "and now?"], { cwd, home, env });
    expect(out.code).toBe(0);
    expect(userTexts(sim!.requests[0]!)).toEqual(["my old question", "and now?"]);
    // Read old, write new: the old file is left as it was, the conversation goes on under the new name.
    expect(readFileSync(mine, "utf8")).toBe(before);
    const [moved] = sessionFiles(sessions({ cwd, home }));
    expect(loadSession(moved!).messages).toHaveLength(4);
    expect(loadSession(moved!).header.forkedFrom).toBe("mine");
    expect(readFileSync(join(memoryDir({ cwd, home }), "MEMORY.md"), "utf8")).toContain("remembered before");
  });
});

describe("one writer per session file", () => {
  it("takes over the lock of a process that died, and refuses one that lives", () => {
    const { cwd, home } = tempWorkspace({ empty: true });
    const log = SessionLog.create(sessions({ cwd, home }), { cwd, model: "anthropic:m" });
    log.close();
    const dead = Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim());
    writeFileSync(`${log.path}.lock`, JSON.stringify({ pid: dead, host: hostname(), since: "x" }));
    const taken = lockSession(log.path);
    expect("release" in taken).toBe(true);
    const second = lockSession(log.path);
    expect(second).toEqual({ heldBy: expect.objectContaining({ pid: process.pid }) });
    if ("release" in taken) taken.release();
    expect(existsSync(`${log.path}.lock`)).toBe(false);
  });

  it("a second mitsu -c while the first runs continues in a copy, with a notice; neither file is broken", async () => {
    const env = await simulator({
      script: [text("zero"), text(`one ${"slowly ".repeat(60)}`), text("two")],
      textChunk: 4,
      delayMs: 25,
    });
    const { cwd, home } = tempWorkspace();
    const binEnv = { PATH: process.env.PATH, HOME: home, ...env };
    expect((await startMitsu(["-p", "zero"], { cwd, env: binEnv }).done).code).toBe(0);
    const [original] = sessionFiles(sessions({ cwd, home }));

    const first = startMitsu(["-p", "-c", "one"], { cwd, env: binEnv });
    while (sim!.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await startMitsu(["-p", "-c", "two"], { cwd, env: binEnv }).done;
    const firstDone = await first.done;
    expect(firstDone.code).toBe(0);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      /is in use by another mitsu \(process \d+\); this session continues in a copy/,
    );

    const files = sessionFiles(sessions({ cwd, home }));
    expect(files).toHaveLength(2);
    const kept = loadSession(original!);
    const copy = loadSession(files.find((f) => f !== original)!);
    const said = (m: { content: Array<{ type: string; text?: string }> }) =>
      m.content.filter((b) => b.type === "text").at(-1)?.text ?? "";
    expect(kept.messages.map(said)).toEqual(["zero", "zero", "one", expect.stringMatching(/^one slowly/)]);
    // Issue 21, item 11: the copy holds the finished turns as they were when the second run started, not the first
    // run's prompt (which was running then).
    expect(copy.messages.map(said)).toEqual(["zero", "zero", "two", "two"]);
    const sent = sim!.requests.find((r) => JSON.stringify(r.body.messages).includes('"two"'));
    expect(JSON.stringify(sent?.body.messages)).not.toContain('"one"');
    expect(copy.header.forkedFrom).toBe(kept.header.id);
    expect(copy.header.system).toEqual(kept.header.system);
    expect(existsSync(`${original}.lock`)).toBe(false);
  });
});

/** Pids of live processes whose command line contains `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.[0];
      if (cmdline.includes(needle) && state !== "Z") found.push(Number(entry));
    } catch {
      // it ended while we looked
    }
  }
  return found;
}

describe("children of a killed mitsu", () => {
  it("a Bash command dies within seconds of kill -9 of mitsu", async () => {
    const marker = `100.${process.pid}${Date.now() % 100000}`;
    onTestFinished(() => {
      for (const pid of processesWith(`sleep ${marker}`)) process.kill(pid, "SIGKILL");
    });
    const env = await simulator({
      script: [
        { content: [{ type: "tool_use", name: "Bash", input: { command: `sleep ${marker}; echo done` } }] },
        text("never"),
      ],
    });
    const { cwd, home } = tempWorkspace();
    const run = startMitsu(["-p", "--permission-mode", "bypassPermissions", "sleep"], {
      cwd,
      env: { PATH: process.env.PATH, HOME: home, ...env },
    });
    const deadline = Date.now() + 15_000;
    while (processesWith(`sleep ${marker}`).length === 0) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    run.child.kill("SIGKILL");
    await run.done;
    const killedAt = Date.now();
    while (processesWith(`sleep ${marker}`).length > 0 && Date.now() - killedAt < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });
});
