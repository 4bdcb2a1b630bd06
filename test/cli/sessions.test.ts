import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { sessionsDir } from "../../src/harness/index.js";
import type { Simulator } from "../../src/simulator/index.js";
import { VirtualScreen } from "../support/virtual-screen.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

class FakeTty extends PassThrough {
  isTTY = true;
}

class Screen extends VirtualScreen {}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

describe("finding, resuming and forking sessions", () => {
  it("-r lists this folder's sessions newest first (prompt, turns, cost) and resumes the one picked; -r <id> and --fork-session", async () => {
    const s = await simulatorEnv({ script: [text("A1"), text("B1"), text("A2"), text("B2"), text("F1")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    expect((await runMitsu(["-p", "alpha question"], { cwd, home, env: s.env })).code).toBe(0);
    await new Promise((r) => setTimeout(r, 20));
    expect((await runMitsu(["-p", "beta question"], { cwd, home, env: s.env })).code).toBe(0);

    const listed = await runMitsu(["-r"], { cwd, home, env: s.env });
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^1\. .*1 turn +\$0\.\d+ +beta question/);
    expect(lines[1]).toMatch(/^2\. .*alpha question/);

    // At a terminal: pick alpha; the next prompt carries alpha's exchange.
    const keyboard = new FakeTty();
    const screen = new Screen();
    const exit = main(["-r"], {
      stdin: keyboard,
      stdout: screen,
      stderr: new Screen(),
      cwd,
      home,
      env: { PATH: process.env.PATH, ...s.env },
    });
    // A searchable list: typing narrows it to alpha's session, Enter picks it.
    await screen.waitFor("Resume a conversation");
    expect(screen.text).toContain("beta question");
    keyboard.write("alpha");
    await screen.waitFor("search: alpha");
    keyboard.write("\r");
    await screen.waitFor("resumed 2 messages");
    keyboard.write("more\r");
    await screen.waitFor("A2");
    keyboard.write("/exit\r");
    expect(await exit).toBe(0);
    expect(JSON.stringify(sim.requests.at(-1)?.body.messages)).toContain("alpha question");

    // -r <id prefix> --fork-session: a new file with the history; the original is untouched.
    const dir = sessionsDir({ cwd, home });
    const files = () => readdirSync(dir).sort();
    const before = files();
    const beta = before
      .map((f) => join(dir, f))
      .find((f) => readFileSync(f, "utf8").includes("beta question"));
    const betaText = readFileSync(beta as string, "utf8");
    const id = JSON.parse(betaText.split("\n")[0] as string).id as string;
    const forked = await runMitsu(["-p", "-r", id.slice(0, 8), "--fork-session", "again"], {
      cwd,
      home,
      env: s.env,
    });
    expect(forked.code).toBe(0);
    expect(JSON.stringify(sim.requests.at(-1)?.body.messages)).toContain("beta question");
    expect(readFileSync(beta as string, "utf8")).toBe(betaText);
    expect(files()).toHaveLength(before.length + 1);

    const unknown = await runMitsu(["-p", "-r", "zzzzzzzz", "x"], { cwd, home, env: s.env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('"zzzzzzzz" is neither');
  });

  it("-c continues the session used last (last written), not the one created last", async () => {
    const s = await simulatorEnv({ script: [text("A1"), text("B1"), text("A2"), text("A3")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    expect((await runMitsu(["-p", "alpha question"], { cwd, home, env: s.env })).code).toBe(0);
    expect((await runMitsu(["-p", "beta question"], { cwd, home, env: s.env })).code).toBe(0);
    // File names start with the creation time (to the second, then the id): the first by name is the one an
    // order by creation puts last.
    const dir = sessionsDir({ cwd, home });
    const [older, newer] = readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()
      .map((f) => readFileSync(join(dir, f), "utf8"));
    const prompt = (file: string) => (file.includes("alpha question") ? "alpha question" : "beta question");
    const id = JSON.parse((older as string).split("\n")[0] as string).id as string;
    // Distinct modification times even on a file system that keeps them coarsely.
    await new Promise((r) => setTimeout(r, 20));
    // The older one is continued: it is now the one used last.
    expect((await runMitsu(["-p", "-r", id, "more"], { cwd, home, env: s.env })).code).toBe(0);
    expect((await runMitsu(["-p", "-c", "and now?"], { cwd, home, env: s.env })).code).toBe(0);
    const sent = JSON.stringify(sim.requests.at(-1)?.body.messages);
    expect(sent).toContain(prompt(older as string));
    expect(sent).toContain("more");
    expect(sent).not.toContain(prompt(newer as string));
  });

  it("/thinking turns extended thinking on for the next request; /model switches the model mid-session and keeps the conversation", async () => {
    const s = await simulatorEnv({ script: [text("first"), text("second"), text("third")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const keyboard = new FakeTty();
    const screen = new Screen();
    const exit = main([], {
      stdin: keyboard,
      stdout: screen,
      stderr: new Screen(),
      cwd,
      home,
      env: { PATH: process.env.PATH, ...s.env },
    });
    keyboard.write("one\r");
    await screen.waitFor("first");
    keyboard.write("/thinking 2048\r");
    await screen.waitFor("thinking on, budget 2048");
    keyboard.write("two\r");
    await screen.waitFor("second");
    expect(sim.requests.at(-1)?.body.thinking).toMatchObject({ type: "enabled", budget_tokens: 2048 });
    expect(sim.requests.at(-1)?.body.max_tokens).toBeGreaterThan(2048);
    keyboard.write("/thinking off\r");
    keyboard.write("/model anthropic:claude-haiku-4-5\r");
    await screen.waitFor("the prompt cache starts over");
    keyboard.write("three\r");
    await screen.waitFor("third");
    keyboard.write("/exit\r");
    expect(await exit).toBe(0);
    const last = sim.requests.at(-1)?.body;
    expect(last.model).toBe("claude-haiku-4-5");
    expect(last.thinking).toBeUndefined();
    expect(JSON.stringify(last.messages)).toContain("second");
  });
});
