import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Simulator, SimulatorOptions } from "../../src/simulator/index.js";
import { VirtualScreen } from "../support/virtual-screen.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

/** A keyboard: what is written to it reaches mitsu as typed at a terminal (`\r` is Enter, `\x03` Ctrl-C). */
class FakeTty extends PassThrough {
  isTTY = true;
}

/** A terminal screen: what a user would see (a headless xterm). */
class Screen extends VirtualScreen {}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** Starts `mitsu <args>` at a fake terminal against a simulator serving `options`. */
async function interactive(options: SimulatorOptions, args: string[] = []) {
  const s = await simulatorEnv(options);
  sim = s.sim;
  const { cwd, home } = tempWorkspace();
  const keyboard = new FakeTty();
  const screen = new Screen();
  const errors = new Screen();
  const exit = main(args, {
    stdin: keyboard,
    stdout: screen,
    stderr: errors,
    cwd,
    home,
    env: { PATH: process.env.PATH, ...s.env },
  }).then(async (code) => {
    await screen.flush();
    return code;
  });
  return {
    sim: s.sim,
    cwd,
    home,
    screen,
    exit,
    type: (line: string) => keyboard.write(`${line}\r`),
    press: (keys: string) => keyboard.write(keys),
  };
}

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const bash = (command: string) => ({
  content: [{ type: "tool_use" as const, name: "Bash", input: { command } }],
});
type Block = { type: string; text?: string; is_error?: boolean; content?: unknown };
const blocks = (sim: Simulator, request: number, message: number): Block[] =>
  sim.requests[request]?.body.messages[message].content;

function sessionFiles(home: string): string[] {
  const projects = join(home, ".mitsu", "projects");
  const project = readdirSync(projects)[0]!;
  const dir = join(projects, project, "sessions");
  return readdirSync(dir).map((name) => join(dir, name));
}

describe("mitsu at a terminal (interactive mode)", () => {
  it("sends the argument first; a second prompt carries the first exchange; the log has all four messages", async () => {
    const t = await interactive({ script: [text("First answer."), text("Second answer.")] }, ["first"]);
    await t.screen.waitFor("First answer.");
    t.type("second");
    await t.screen.waitFor("Second answer.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(t.sim.requests).toHaveLength(2);
    const messages = t.sim.requests[1]?.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(blocks(t.sim, 1, 0).at(-1)?.text).toBe("first");
    expect(blocks(t.sim, 1, 1)[0]?.text).toBe("First answer.");
    expect(blocks(t.sim, 1, 2).at(-1)?.text).toBe("second");
    const [file] = sessionFiles(t.home);
    const roles = readFileSync(file!, "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => JSON.parse(line).message.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("--cache-ttl 1h reaches the breakpoints, as in print mode (it was dropped at the terminal)", async () => {
    const t = await interactive({ script: [text("Cached.")] }, ["--cache-ttl", "1h", "hi"]);
    await t.screen.waitFor("Cached.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    const body = t.sim.requests[0]?.body;
    expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it("asks before Bash; n refuses with one key and stops the turn: the command never runs, the next prompt says what instead", async () => {
    const t = await interactive({ script: [bash("touch marker"), text("Understood.")] });
    t.type("make a marker");
    await t.screen.waitFor("Do you want to proceed?");
    expect(t.screen.text).toContain("Bash(touch marker)");
    expect(t.screen.text).toContain("2. Yes, and don't ask again for Bash(touch:*)");
    t.press("n");
    await t.screen.waitFor("What should mitsu do instead?");
    // The turn stopped: no request after the refusal, and the user saw no text meant for the model.
    expect(t.sim.requests).toHaveLength(1);
    expect(t.screen.text).toContain("refused by you");
    expect(t.screen.text).not.toContain("STOP what you are doing");
    t.type("do not touch anything");
    await t.screen.waitFor("Understood.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(existsSync(join(t.cwd, "marker"))).toBe(false);
    const messages = t.sim.requests[1]?.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "user"]);
    const result = blocks(t.sim, 1, 2)[0];
    expect(result?.is_error).toBe(true);
    expect(JSON.stringify(result?.content)).toContain("doesn't want to proceed");
    expect(blocks(t.sim, 1, 3).at(-1)?.text).toBe("do not touch anything");
  });

  it("an empty answer to 'what should mitsu do instead?' goes back to the prompt without a request", async () => {
    const t = await interactive({ script: [bash("touch marker"), text("Hello again.")] });
    t.type("make a marker");
    await t.screen.waitFor("Do you want to proceed?");
    t.press("3");
    await t.screen.waitFor("What should mitsu do instead?");
    t.press("\u001b");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.sim.requests).toHaveLength(1);
    t.type("hi");
    await t.screen.waitFor("Hello again.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
  });

  it("y runs the call once; a key it does not know is ignored", async () => {
    const t = await interactive({ script: [bash("touch marker"), text("Made it.")] });
    t.type("make a marker");
    await t.screen.waitFor("Do you want to proceed?");
    t.press("x");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.screen.count("Do you want to proceed?")).toBe(1);
    t.press("y");
    await t.screen.waitFor("Made it.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(existsSync(join(t.cwd, "marker"))).toBe(true);
    expect(blocks(t.sim, 1, 2)[0]?.is_error).toBeFalsy();
  });

  it("a runs the call and allows the same call again without asking", async () => {
    const t = await interactive({
      script: [bash("touch marker"), bash("touch marker"), text("Twice.")],
    });
    t.type("make a marker twice");
    await t.screen.waitFor("Do you want to proceed?");
    t.press("a");
    await t.screen.waitFor("Twice.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(t.screen.count("allowed always")).toBe(1);
    expect(t.screen.count("Do you want to proceed?")).toBe(0);
    expect(existsSync(join(t.cwd, "marker"))).toBe(true);
    expect(blocks(t.sim, 1, 2)[0]?.is_error).toBeFalsy();
    expect(blocks(t.sim, 2, 4)[0]?.is_error).toBeFalsy();
  });

  it("a footer after each turn says how long it took and the tokens, without --verbose", async () => {
    const t = await interactive({ script: [text("First."), text("Second.")] });
    t.type("one");
    await t.screen.waitFor("First.");
    await t.screen.waitFor(" out");
    t.type("two");
    await t.screen.waitFor("Second.");
    await t.screen.waitFor(" out", 2);
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(t.screen.text).toMatch(/First\.\n· \d+\.\ds · \d+(\.\d)?k? in · \d+ out( · \$[\d.]+)?\n/);
  });

  it("2 (always) saves the narrowest rule to .mitsu/settings.local.json, which the next session honours", async () => {
    // (A loop of `echo` alone only reads: it would run without a question.)
    const t = await interactive({
      script: [bash("for i in 1 2; do echo $i; sleep 0; done"), text("Looped.")],
    });
    t.type("loop");
    await t.screen.waitFor("Do you want to proceed?");
    expect(t.screen.text).toContain(
      "2. Yes, and don't ask again for Bash(echo:*), Bash(sleep:*) in this project",
    );
    t.press("2");
    await t.screen.waitFor("Looped.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    const saved = JSON.parse(readFileSync(join(t.cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(saved.permissions.allow).toEqual(["Bash(echo:*)", "Bash(sleep:*)"]);
    expect(t.screen.text).toContain("saved Bash(echo:*), Bash(sleep:*)");
  });

  it("asks for parallel calls one at a time, each answer to its own call", async () => {
    const t = await interactive({
      script: [
        {
          content: [
            { type: "tool_use", name: "Bash", input: { command: "touch one" } },
            { type: "tool_use", name: "Write", input: { file_path: "two.txt", content: "2" } },
          ],
        },
        text("Done."),
      ],
    });
    t.type("make two files");
    await t.screen.waitFor("Do you want to proceed?");
    // Both checks are under way; give the second time to (wrongly) show its question over the first.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(t.screen.count("Do you want to proceed?")).toBe(1);
    expect(t.screen.text).toContain("Bash(touch one)");
    t.press("y");
    await t.screen.waitFor("Write(two.txt)");
    await t.screen.waitFor("Bash(touch one): allowed once");
    expect(t.screen.count("Do you want to proceed?")).toBe(1);
    t.press("n");
    await t.screen.waitFor("What should mitsu do instead?");
    t.type("fine");
    await t.screen.waitFor("Done.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(existsSync(join(t.cwd, "one"))).toBe(true);
    expect(existsSync(join(t.cwd, "two.txt"))).toBe(false);
  });

  it("holds a parallel call's result while a question waits, and prints it after the answer", async () => {
    const t = await interactive(
      {
        script: [
          {
            content: [
              { type: "tool_use", name: "Bash", input: { command: "sleep 0.3; printf 'slow-%s' result" } },
              { type: "tool_use", name: "Write", input: { file_path: "two.txt", content: "2" } },
            ],
          },
          text("Done."),
        ],
      },
      ["--allowedTools", "Bash(sleep:*),Bash(printf:*)"],
    );
    t.type("go");
    await t.screen.waitFor("Do you want to proceed?");
    // The Bash call ends while the question is on screen: its result shows above the question, which stays whole
    // at the bottom of the screen.
    await t.screen.waitFor("slow-result");
    const lines = t.screen.text.split("\n");
    expect(lines.findIndex((l) => l.includes("slow-result"))).toBeLessThan(
      lines.findIndex((l) => l.includes("Do you want to proceed?")),
    );
    expect(lines.at(-2)).toContain("Esc to refuse");
    t.press("n");
    await t.screen.waitFor("What should mitsu do instead?");
    t.type("go on");
    await t.screen.waitFor("Done.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
  });

  it("/help and an unknown /command answer at once, with no request", async () => {
    const t = await interactive({ script: [] });
    t.type("/help");
    await t.screen.waitFor("/commit");
    t.type("/nope");
    await t.screen.waitFor("unknown command /nope");
    t.type("/cost");
    await t.screen.waitFor("session (0 calls): $0.00 — 0 in, 0 out");
    t.type("/agents");
    await t.screen.waitFor("Explore  [builtin]");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(t.screen.text).toContain("/clear");
    expect(t.screen.text).toContain("/agents");
    expect(t.sim.requests).toHaveLength(0);
  });

  it("/rewind lists the prompts, cuts the conversation at the one picked and restores the files Write and Edit changed", async () => {
    const tool = (name: string, input: Record<string, unknown>) => ({
      content: [{ type: "tool_use" as const, name, input }],
    });
    const t = await interactive(
      {
        script: [
          tool("Write", { file_path: "a.txt", content: "one\n" }),
          text("Made."),
          tool("Edit", { file_path: "a.txt", old_string: "one", new_string: "two" }),
          text("Changed."),
          text("Again."),
        ],
      },
      ["--permission-mode", "acceptEdits"],
    );
    t.type("make the file");
    await t.screen.waitFor("Made.");
    t.type("change the file");
    await t.screen.waitFor("Changed.");
    expect(readFileSync(join(t.cwd, "a.txt"), "utf8")).toBe("two\n");
    t.type("/rewind");
    await t.screen.waitFor("rewind to which prompt?");
    expect(t.screen.text).toContain("1. make the file");
    expect(t.screen.text).toContain("2. change the file");
    t.type("2");
    await t.screen.waitFor("[y]es / [n]o");
    t.type("y");
    await t.screen.waitFor("Bash's effects are not tracked and were not undone.");
    expect(t.screen.text).toContain(`restored ${join(t.cwd, "a.txt")}`);
    expect(readFileSync(join(t.cwd, "a.txt"), "utf8")).toBe("one\n");
    t.type("again");
    await t.screen.waitFor("Again.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    const sent = JSON.stringify(t.sim.requests.at(-1)?.body.messages);
    expect(sent).toContain("make the file");
    expect(sent).not.toContain("change the file");
    const [file] = sessionFiles(t.home).filter((path) => path.endsWith(".jsonl"));
    expect(readFileSync(file!, "utf8")).toContain("change the file");
  });

  it("/clear starts a new transcript, with the first-message reminders again, in a new session log", async () => {
    const t = await interactive({ script: [text("One."), text("Two.")] });
    t.type("first");
    await t.screen.waitFor("One.");
    t.type("/clear");
    t.type("second");
    await t.screen.waitFor("Two.");
    t.type("/cost");
    await t.screen.waitFor("session (2 calls)");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    const messages = t.sim.requests[1]?.body.messages;
    expect(messages).toHaveLength(1);
    const texts = blocks(t.sim, 1, 0).map((b) => b.text ?? "");
    expect(texts.at(-1)).toBe("second");
    expect(texts.some((x) => x.startsWith("<system-reminder>"))).toBe(true);
    expect(sessionFiles(t.home)).toHaveLength(2);
    // Usage is counted over the whole session, across /clear.
    expect(t.screen.text).toMatch(/session \(2 calls\): \$\d+\.\d+ — [\d,]+ in, [1-9][\d,]* out/);
  });

  it("Ctrl-C during a slow stream stops that run; the next prompt extends a valid transcript", async () => {
    const t = await interactive({
      script: [text(`Counting: ${"one two three four five six seven ".repeat(60)}`), text("Recovered.")],
      textChunk: 8,
      delayMs: 5,
    });
    t.type("count");
    await t.screen.waitFor("Counting");
    t.press("\u0003");
    await t.screen.waitFor("interrupted");
    t.type("go on");
    await t.screen.waitFor("Recovered.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(t.sim.requests.map((r) => r.status)).toEqual([200, 200]);
    const messages = t.sim.requests[1]?.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    const partial = blocks(t.sim, 1, 1)[0]?.text ?? "";
    expect(partial.startsWith("Counting")).toBe(true);
    expect(partial.length).toBeLessThan(400);
    expect(blocks(t.sim, 1, 2).at(-1)?.text).toBe("go on");
  });

  it("Ctrl-C at a permission question denies it and stops the run; the transcript stays valid", async () => {
    const t = await interactive({ script: [bash("touch marker"), text("Fine.")] });
    t.type("make a marker");
    await t.screen.waitFor("Do you want to proceed?");
    t.press("\u0003");
    await t.screen.waitFor("interrupted");
    t.type("never mind");
    await t.screen.waitFor("Fine.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(existsSync(join(t.cwd, "marker"))).toBe(false);
    const messages = t.sim.requests[1]?.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "user"]);
    expect(blocks(t.sim, 1, 2)[0]?.is_error).toBe(true);
    expect(blocks(t.sim, 1, 3).at(-1)?.text).toBe("never mind");
  });

  it("Ctrl-C twice at an empty prompt leaves; so does Ctrl-D", async () => {
    const a = await interactive({ script: [] });
    a.press("\u0003");
    await a.screen.waitFor("Ctrl-C again");
    a.press("\u0003");
    expect(await a.exit).toBe(0);
    await sim?.close();
    const b = await interactive({ script: [] });
    b.press("\u0004");
    expect(await b.exit).toBe(0);
  });

  it("Ctrl-D during a run stops it and leaves with 130 (interrupted); the log ends with the partial answer", async () => {
    const t = await interactive({
      script: [text(`Counting: ${"one two three ".repeat(200)}`)],
      textChunk: 8,
      delayMs: 5,
    });
    t.type("count");
    await t.screen.waitFor("Counting");
    t.press("\u0004");
    expect(await t.exit).toBe(130);
    const [file] = sessionFiles(t.home);
    const lines = readFileSync(file!, "utf8").trim().split("\n").slice(1);
    const last = JSON.parse(lines.at(-1)!).message;
    expect(lines).toHaveLength(2);
    expect(last.role).toBe("assistant");
    expect(last.content[0].text.length).toBeLessThan(1000);
  });

  it("Ctrl-C with text on the line clears the line and does not count toward leaving", async () => {
    const t = await interactive({ script: [text("Cleared.")] });
    t.press("half a thought");
    t.press("\u0003");
    t.press("\u0003");
    await t.screen.waitFor("Ctrl-C again");
    t.type("hello");
    await t.screen.waitFor("Cleared.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(blocks(t.sim, 0, 0).at(-1)?.text).toBe("hello");
  });

  it("an interrupted session resumes with -c, and again: the log stays exactly the transcript as sent", async () => {
    const t = await interactive({
      script: [bash("touch marker"), text("Resumed once."), text("Resumed twice.")],
    });
    t.type("make a marker");
    await t.screen.waitFor("Do you want to proceed?");
    t.press("\u0003");
    await t.screen.waitFor("interrupted");
    t.press("\u0004");
    expect(await t.exit).toBe(0);
    const env = { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: t.sim.url };
    const where = { cwd: t.cwd, home: t.home, env };
    expect((await runMitsu(["-p", "-c", "again"], where)).code).toBe(0);
    expect((await runMitsu(["-p", "-c", "and again"], where)).code).toBe(0);
    expect(t.sim.requests.map((r) => r.status)).toEqual([200, 200, 200]);
    const last = t.sim.requests[2]?.body.messages;
    expect(last.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "user",
      "assistant",
      "user",
    ]);
    expect(sessionFiles(t.home)).toHaveLength(1);
  });

  it("without a terminal on stdin and without -p, it behaves as print mode", async () => {
    const s = await simulatorEnv({ script: [text("Piped answer.")] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const stdin = new PassThrough();
    stdin.end("a piped prompt");
    const screen = new Screen();
    const code = await main([], {
      stdin,
      stdout: screen,
      stderr: new Screen(),
      cwd,
      home,
      env: { PATH: process.env.PATH, ...s.env },
    });
    expect(code).toBe(0);
    await screen.flush();
    expect(screen.text).toContain("Piped answer.");
    expect(screen.text).not.toContain("> ");
  });
});

describe("background shells at the terminal", () => {
  it("lists the shells still running after a reply, and stops them when mitsu exits", async () => {
    const t = await interactive(
      {
        script: [
          {
            content: [
              {
                type: "tool_use",
                name: "Bash",
                input: { command: "echo $$ > server.pid; sleep 60", run_in_background: true },
              },
            ],
          },
          text("The server runs."),
        ],
      },
      ["--allowedTools", "Bash"],
    );
    t.type("start the server");
    await t.screen.waitFor("The server runs.");
    await t.screen.waitFor("◦ 1 background shell running: bash_1 echo $$ > server.pid; sleep 60");
    const pidFile = join(t.cwd, "server.pid");
    for (let i = 0; i < 100 && !(existsSync(pidFile) && readFileSync(pidFile, "utf8") !== ""); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const pid = Number(readFileSync(pidFile, "utf8"));
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe("images at the terminal", () => {
  it("a dropped image's path, wherever it is, is attached", async () => {
    const t = await interactive({ script: [text("A dot.")] });
    const dir = join(t.cwd, "..", "Desktop Shots");
    mkdirSync(dir);
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
      "base64",
    );
    writeFileSync(join(dir, "a.png"), png);
    t.type(`what is this ${join(dir, "a.png").replace(/ /g, "\\ ")}`);
    await t.screen.waitFor("A dot.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    const content = blocks(t.sim, 0, 0);
    expect(content.some((b) => b.type === "image")).toBe(true);
    expect(content.at(-1)?.text).toBe(`what is this [Image #1: ${join(dir, "a.png")}]`);
  });
});

describe("sub-agents at a terminal", () => {
  it("no to a sub-agent's call stops the sub-agent and its parent: no further request from either", async () => {
    const t = await interactive({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_task",
              name: "Task",
              input: {
                description: "make notes",
                prompt: "Write notes.md",
                subagent_type: "general-purpose",
              },
            },
          ],
        },
        {
          content: [
            { type: "tool_use", id: "c1", name: "Write", input: { file_path: "notes.md", content: "n\n" } },
          ],
        },
        text("never sent: the sub-agent goes on"),
        text("never sent: the parent goes on"),
      ],
    });
    t.type("delegate the notes");
    await t.screen.waitFor("Do you want to proceed?");
    t.press("3");
    await t.screen.waitFor("What should mitsu do instead?");
    expect(t.sim.requests).toHaveLength(2);
    expect(existsSync(join(t.cwd, "notes.md"))).toBe(false);
    expect(t.screen.text).not.toContain("never sent");
    t.type("");
    t.type("/exit");
    expect(await t.exit).toBe(0);
  });

  it("a sub-agent's permission question names it; its running block shows its current call; it collapses to one line", async () => {
    const t = await interactive({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_task",
              name: "Task",
              input: {
                description: "make notes",
                prompt: "Write notes.md",
                subagent_type: "general-purpose",
              },
            },
          ],
        },
        {
          content: [
            { type: "tool_use", id: "c1", name: "Write", input: { file_path: "notes.md", content: "n\n" } },
          ],
        },
        text("Wrote notes.md."),
        text("The sub-agent wrote the notes."),
      ],
    });
    t.type("delegate the notes");
    await t.screen.waitFor("Do you want to proceed?");
    // The block under the Task call: its current call, while the question waits.
    await t.screen.waitFor("Write notes.md · 1 tool call");
    expect(t.screen.text).toContain("[general-purpose: make notes]");
    expect(t.screen.text).toContain("Write(notes.md)");
    t.press("y");
    await t.screen.waitFor("The sub-agent wrote the notes.");
    t.type("/exit");
    expect(await t.exit).toBe(0);
    expect(readFileSync(join(t.cwd, "notes.md"), "utf8")).toBe("n\n");
    expect(t.screen.text).toContain("● Task(general-purpose: make notes)");
    // Then one summary line.
    expect(t.screen.text).toMatch(/⎿ Done — general-purpose: 2 turns, 1 tool call, [\d,]+ tokens, [\d.]+ s/);
    // None of the sub-agent's own text is printed (only --verbose shows its stream).
    expect(t.screen.text).not.toContain("Wrote notes.md.");
  });
});
