import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import { loadSession } from "../session/index.js";
import { type Simulator, startSimulator } from "../simulator/index.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const call = (name: string, input: Record<string, unknown>) => ({
  content: [{ type: "tool_use" as const, name, input }],
});
const say = (text: string) => ({ content: [{ type: "text" as const, text }] });

/** Prompt 1 overwrites notes.txt and creates new.txt; prompt 2 edits new.txt. */
async function twoPrompts() {
  sim = await startSimulator({
    script: [
      call("Read", { file_path: "notes.txt" }),
      call("Write", { file_path: "notes.txt", content: "one\n" }),
      call("Write", { file_path: "new.txt", content: "fresh\n" }),
      say("first done"),
      call("Edit", { file_path: "new.txt", old_string: "fresh", new_string: "changed" }),
      say("second done"),
    ],
  });
  const root = mkdtempSync(join(tmpdir(), "mitsu-rewind-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "orig\n");
  const options: CodingAgentOptions = {
    cwd,
    home,
    env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
    model: "anthropic:claude-sonnet-4-5",
    permissionMode: "bypassPermissions",
  };
  const agent = await createCodingAgent(options);
  await drain(agent.prompt("write the notes"));
  await drain(agent.prompt("edit the new file"));
  expect(readFileSync(join(cwd, "new.txt"), "utf8")).toBe("changed\n");
  return { agent, cwd, options };
}

/** Messages without their cache breakpoints (placed per request, not part of the transcript's meaning). */
const strip = (value: unknown): string =>
  JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v));

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>): Promise<AgentResult> {
  for (;;) {
    const next = await run.next();
    if (next.done) return next.value;
  }
}

describe("rewind", () => {
  it("restores the files Write and Edit changed, cuts the history, keeps every line in the log, and resumes rewound", async () => {
    const { agent, cwd, options } = await twoPrompts();
    const points = agent.rewindPoints();
    expect(points.map((p) => p.firstLine)).toEqual(["write the notes", "edit the new file"]);
    const full = agent.history.length;

    const second = agent.rewind(points[1]!.index, { restoreFiles: true });
    expect(second.restored).toEqual([join(cwd, "new.txt")]);
    expect(readFileSync(join(cwd, "new.txt"), "utf8")).toBe("fresh\n");
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("one\n");
    expect(agent.history).toHaveLength(points[1]!.index);

    const first = agent.rewind(points[0]!.index, { restoreFiles: true });
    expect(first.restored.sort()).toEqual([join(cwd, "new.txt"), join(cwd, "notes.txt")]);
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("orig\n");
    expect(existsSync(join(cwd, "new.txt"))).toBe(false);
    expect(agent.history).toHaveLength(0);

    const path = agent.sessionPath!;
    const text = readFileSync(path, "utf8");
    expect(text).toContain("edit the new file");
    expect(text.match(/"type":"rewind"/g)).toHaveLength(2);
    expect(text.split("\n").filter((l) => l.includes('"type":"message"')).length).toBe(full);
    // The checkpoints live beside the session file, private to the user.
    const folder = path.replace(/\.jsonl$/, ".checkpoints");
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(folder)) expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    await agent.close();

    expect(loadSession(path).messages).toEqual([]);
    const resumed = await createCodingAgent({ ...options, session: { resume: path } });
    expect(resumed.history).toEqual([]);
    await resumed.close();
  });

  it("without restore leaves the files as they are; a resume gives the rewound history", async () => {
    const { agent, cwd, options } = await twoPrompts();
    const points = agent.rewindPoints();
    const kept = agent.history.slice(0, points[1]!.index);
    const result = agent.rewind(points[1]!.index, { restoreFiles: false });
    expect(result.restored).toEqual([]);
    expect(readFileSync(join(cwd, "new.txt"), "utf8")).toBe("changed\n");
    expect(readFileSync(join(cwd, "notes.txt"), "utf8")).toBe("one\n");
    expect(agent.history).toEqual(kept);
    expect(() => agent.rewind(1)).toThrow(/No user prompt/);
    const path = agent.sessionPath!;
    await agent.close();
    const resumed = await createCodingAgent({ ...options, session: { resume: path } });
    expect(strip(resumed.history)).toEqual(strip(kept));
    expect(resumed.rewindPoints().map((p) => p.firstLine)).toEqual(["write the notes"]);
    await resumed.close();
  });

  it("the request after a rewind starts a new prefix epoch: no 'prefix broken' warning, the instructions not sent twice", async () => {
    sim = await startSimulator({ script: [say("one done"), say("two done"), say("three done")] });
    const root = mkdtempSync(join(tmpdir(), "mitsu-rewind-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "AGENTS.md"), "Use tabs.\n");
    const agent = await createCodingAgent({
      cwd,
      home: join(root, "home"),
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
      model: "anthropic:claude-sonnet-4-5",
    });
    await drain(agent.prompt("one"));
    await drain(agent.prompt("two"));
    agent.rewind(agent.rewindPoints()[1]!.index);
    await drain(agent.prompt("three"));
    expect(agent.context.warnings.filter((w) => w.code === "prefix-broken")).toEqual([]);
    const messages = sim.requests[2]!.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(JSON.stringify(messages).split("Use tabs.").length - 1).toBe(1);
    await agent.close();
  });
});
