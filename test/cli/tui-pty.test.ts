import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Simulator, SimulatorOptions } from "../../src/simulator/index.js";
import { type PtyMitsu, ptyRuns } from "../support/pty.js";
import { simulatorEnv, tempWorkspace } from "./cli-harness.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
const bash = (command: string) => ({
  content: [{ type: "tool_use" as const, name: "Bash", input: { command } }],
});

const pty = ptyRuns();

/**
 * `mitsu` in a pseudo-terminal (100×30 unless `size` says) against a simulator serving `options`, once its
 * screen shows `ready` (the welcome's "/help for commands").
 */
async function start(
  options: SimulatorOptions,
  {
    size = {},
    ready = "/help for commands",
    args = [],
  }: { size?: { cols?: number; rows?: number }; ready?: string; args?: string[] } = {},
) {
  const where = tempWorkspace();
  const s = await simulatorEnv(options);
  pty.serve(s);
  const env = { PATH: process.env.PATH, HOME: where.home, ...s.env };
  const launch = (args: string[] = []) => pty.spawn(args, { cwd: where.cwd, env, ...size });
  const m = launch(args);
  await m.waitFor(ready);
  return { sim: s.sim, ...where, m, launch };
}

/** Types `prompt` and sends it (Enter). */
async function send(m: PtyMitsu, prompt: string): Promise<void> {
  await m.type(prompt);
  m.press("enter");
}

/** Ctrl-D at the prompt: mitsu leaves with status 0. */
async function quit(m: PtyMitsu): Promise<void> {
  m.press("ctrl-d");
  expect(await m.exit).toBe(0);
}

const userTexts = (sim: Simulator, request: number): string[] =>
  sim.requests[request]?.body.messages
    .filter((m: { role: string }) => m.role === "user")
    .flatMap((m: { content: Array<{ type: string; text?: string }> }) =>
      m.content
        .filter((b) => b.type === "text" && !b.text?.startsWith("<system-reminder>"))
        .map((b) => b.text),
    );

describe("the interactive screen in a pseudo-terminal", () => {
  it("types a prompt, streams the answer, and shows the footer after the turn", async () => {
    const t = await start({ script: [text("Hello from the simulator.")] });
    await send(t.m, "hi there");
    await t.m.waitFor("Hello from the simulator.");
    await t.m.waitFor(/· \d+\.\ds · \d+(\.\d)?k? in · \d+ out/);
    expect(t.m.screen()).toContain("> hi there");
    await quit(t.m);
    expect(userTexts(t.sim, 0).at(-1)).toBe("hi there");
  });

  it("a paste of three lines is one prompt, not three", async () => {
    const t = await start({ script: [text("One prompt."), text("Unexpected second.")] });
    t.m.paste("line one\nline two\nline three");
    await t.m.waitFor("line three");
    t.m.press("enter");
    await t.m.waitFor("One prompt.");
    await t.m.waitFor(/ out/);
    await quit(t.m);
    expect(t.sim.requests).toHaveLength(1);
    expect(userTexts(t.sim, 0).at(-1)).toBe("line one\nline two\nline three");
  });

  it("Shift-Enter and \\-Enter start a new line instead of sending", async () => {
    const t = await start({ script: [text("Got three lines.")] });
    await t.m.type("a");
    t.m.press("shift-enter");
    await t.m.type("b\\");
    t.m.press("enter");
    await send(t.m, "c");
    await t.m.waitFor("Got three lines.");
    await quit(t.m);
    expect(userTexts(t.sim, 0).at(-1)).toBe("a\nb\nc");
  });

  it("shows the spinner with esc to interrupt; Esc stops a slow turn and the next prompt extends a valid transcript", async () => {
    const t = await start({
      script: [text(`Counting: ${"one two three four five six seven ".repeat(80)}`), text("Recovered.")],
      textChunk: 8,
      delayMs: 10,
    });
    await send(t.m, "count");
    await t.m.waitFor("esc to interrupt");
    await t.m.waitFor("Counting");
    t.m.press("escape");
    await t.m.waitFor("interrupted");
    await send(t.m, "go on");
    await t.m.waitFor("Recovered.");
    await quit(t.m);
    const messages = t.sim.requests[1]?.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(messages[1].content[0].text.length).toBeLessThan(600);
  });

  it("approves a tool call with the single key 1", async () => {
    const t = await start({ script: [bash("sleep 0; echo approved-run"), text("Ran it.")] });
    await send(t.m, "run it");
    await t.m.waitFor("Do you want to proceed?");
    expect(t.m.screen()).toContain("echo approved-run");
    await t.m.type("1");
    await t.m.waitFor("Ran it.");
    expect(t.m.screen()).toContain("allowed once");
    await quit(t.m);
    const result = t.sim.requests[1]?.body.messages[2].content[0];
    expect(result.is_error).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain("approved-run");
  });

  it('rules saved on "always" are the user\'s: the next start asks no trust question and runs the command; git ignores the file', async () => {
    const t = await start({
      script: [bash("touch first.txt"), text("Made one."), bash("touch second.txt"), text("Made two.")],
    });
    execFileSync("git", ["init", "-q"], { cwd: t.cwd });
    await send(t.m, "make one");
    await t.m.waitFor("Do you want to proceed?");
    await t.m.type("2");
    await t.m.waitFor("Made one.");
    expect(t.m.screen()).toContain("saved Bash(touch:*)");
    await quit(t.m);
    expect(readFileSync(join(t.cwd, ".git", "info", "exclude"), "utf8")).toContain(
      "/.mitsu/settings.local.json",
    );
    expect(execFileSync("git", ["status", "--porcelain"], { cwd: t.cwd, encoding: "utf8" })).not.toContain(
      "settings.local.json",
    );

    const again = t.launch();
    await again.waitFor("/help for commands");
    expect(again.screen()).not.toContain("Do you trust");
    await send(again, "make two");
    await again.waitFor("Made two.");
    expect(again.screen()).not.toContain("Do you want to proceed?");
    expect(existsSync(join(t.cwd, "second.txt"))).toBe(true);
    await quit(again);
  });

  it("a prompt typed during a turn is shown as queued and sent when the turn ends", async () => {
    const t = await start({
      script: [text(`Slow: ${"word ".repeat(150)}`), text("Queued answered.")],
      textChunk: 8,
      delayMs: 10,
    });
    await send(t.m, "first");
    await t.m.waitFor("Slow");
    await send(t.m, "second");
    await t.m.waitFor("queued: second");
    await t.m.waitFor("Queued answered.", 15_000);
    await quit(t.m);
    expect(t.sim.requests).toHaveLength(2);
    expect(userTexts(t.sim, 1).at(-1)).toBe("second");
  });

  it("-c shows the recap of the resumed conversation; history survives a restart (Up arrow)", async () => {
    const t = await start({ script: [text("Remembered answer."), text("Second session.")] });
    await send(t.m, "remember this prompt");
    await t.m.waitFor("Remembered answer.");
    await quit(t.m);

    const again = t.launch(["-c"]);
    await again.waitFor("resumed 2 messages");
    expect(again.screen()).toContain("remember this prompt");
    expect(again.screen()).toContain("Remembered answer.");
    again.press("up");
    await again.waitFor(/remember this prompt[\s\S]*remember this prompt/);
    again.press("enter");
    await again.waitFor("Second session.");
    await quit(again);
    expect(userTexts(t.sim, 1).at(-1)).toBe("remember this prompt");
    const projects = join(t.home, ".mitsu", "projects");
    const history = readFileSync(join(projects, readdirSync(projects)[0]!, "history.jsonl"), "utf8");
    // The same prompt again is not kept twice.
    expect(
      history
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).prompt),
    ).toEqual(["remember this prompt"]);
  });

  it("Tab completes a slash command and an @file path; the file is attached", async () => {
    const t = await start({ script: [text("Read the readme.")] });
    await t.m.type("/hel");
    // The list of matches shows under the editor as the name is typed (its description with it).
    await t.m.waitFor("this list");
    t.m.press("tab");
    await t.m.waitFor(/\/help\s*\n/);
    t.m.press("enter");
    await t.m.waitFor("/help");
    await t.m.waitFor("leave mitsu");
    await t.m.type("summarise @READ");
    t.m.press("tab");
    await t.m.waitFor("summarise @README.md");
    t.m.press("enter");
    await t.m.waitFor("Read the readme.");
    await quit(t.m);
    const sent = JSON.stringify(t.sim.requests[0]?.body.messages.at(-1));
    // The text says which file; the file itself follows it.
    expect(sent).toContain("summarise README.md");
    expect(sent).toContain('<file path=\\"README.md\\">');
  });

  it("a long output is collapsed with a hint; Ctrl-O shows the last one whole, and again collapses it", async () => {
    const t = await start({ script: [bash("seq 1 40"), text("Counted.")] });
    await send(t.m, "count to forty");
    await t.m.waitFor("Do you want to proceed?");
    t.m.press("enter");
    await t.m.waitFor("Counted.");
    expect(t.m.screen()).toContain("ctrl+o to expand");
    expect(t.m.screen()).not.toMatch(/^\s+(⎿ )?5$/m);
    t.m.press("ctrl-o");
    await t.m.waitFor(/^\s+⎿ 1$/m);
    expect(t.m.screen()).toMatch(/^\s+5$/m);
    // Again: in part again.
    t.m.press("ctrl-o");
    await t.m.waitFor(() => !/^\s+5$/m.test(t.m.screen()));
    expect(t.m.screen()).toContain("ctrl+o to expand");
    await quit(t.m);
  });

  it("/clear clears the screen and starts a new conversation", async () => {
    const t = await start({ script: [text("Old answer."), text("New answer.")] });
    await send(t.m, "first");
    await t.m.waitFor("Old answer.");
    await send(t.m, "/clear");
    await t.m.waitFor("(a new conversation)");
    expect(t.m.screen()).not.toContain("Old answer.");
    await send(t.m, "second");
    await t.m.waitFor("New answer.");
    await quit(t.m);
    expect(t.sim.requests[1]?.body.messages).toHaveLength(1);
  });

  it("keys typed at 0 ms are applied in order, whatever the completion list is doing", async () => {
    const t = await start({ script: [text("Old answer."), text("Second answer."), text("Third answer.")] });
    const cleared = async (before: string) => {
      await t.m.waitFor(
        () => !t.m.screen().includes(before) && t.m.screen().includes("(a new conversation)"),
      );
      expect(t.m.screen()).not.toMatch(/\/cle\S*clear|\/clea\S*agents/);
    };
    await send(t.m, "first");
    await t.m.waitFor("Old answer.");
    // The list shows for "/cl"; the rest of the name and Enter come in one chunk, before any completion runs.
    await t.m.type("/cl");
    await t.m.waitFor("start a new conversation");
    t.m.write("ear\r");
    await cleared("Old answer.");
    await send(t.m, "second");
    await t.m.waitFor("Second answer.");
    // The whole command in one write.
    t.m.write("/clear\r");
    await cleared("Second answer.");
    await send(t.m, "third");
    await t.m.waitFor("Third answer.");
    // Byte by byte, one write each, no delay.
    await t.m.type("/clear\r", 0);
    await cleared("Third answer.");
    await quit(t.m);
    // Three prompts, each the first of a new conversation: no garbled command went to the model.
    expect(t.sim.requests.map((r) => userTexts(t.sim, t.sim.requests.indexOf(r)).at(-1))).toEqual([
      "first",
      "second",
      "third",
    ]);
    expect(t.sim.requests.every((r) => r.body.messages.length === 1)).toBe(true);
  });

  it("Esc takes a queued prompt back into the editor without stopping the turn", async () => {
    const t = await start({
      script: [text(`Slow: ${"word ".repeat(150)}`), text("Edited one answered.")],
      textChunk: 8,
      delayMs: 10,
    });
    await send(t.m, "first");
    await t.m.waitFor("Slow");
    await send(t.m, "secnd");
    await t.m.waitFor("queued: secnd");
    t.m.press("escape");
    await t.m.waitFor(/ out/, 15_000);
    expect(t.m.screen()).not.toContain("queued: secnd");
    expect(t.m.screen()).not.toContain("interrupted");
    expect(t.sim.requests).toHaveLength(1);
    t.m.press("backspace");
    t.m.press("backspace");
    t.m.press("backspace");
    await send(t.m, "cond");
    await t.m.waitFor("Edited one answered.");
    await quit(t.m);
    expect(userTexts(t.sim, 1).at(-1)).toBe("second");
  });

  it("with no API key, the error is printed on a clean line, not over the editor's border", async () => {
    const where = tempWorkspace();
    const m = pty.spawn([], { cwd: where.cwd, env: { PATH: process.env.PATH, HOME: where.home } });
    expect(await m.exit).toBe(1);
    const line = m
      .screen()
      .split("\n")
      .find((row) => row.includes("No API key"));
    expect(line).toBe("mitsu: No API key for anthropic: set ANTHROPIC_API_KEY");
  });

  it("Shift-Tab cycles the permission mode: in accept edits a Write runs without a question", async () => {
    const t = await start({
      script: [
        {
          content: [
            { type: "tool_use" as const, name: "Write", input: { file_path: "notes.txt", content: "hi\n" } },
          ],
        },
        text("Written."),
      ],
    });
    t.m.press("shift-tab");
    await t.m.waitFor("accept edits on (shift+tab to cycle)");
    await send(t.m, "write it");
    await t.m.waitFor("Written.");
    expect(t.m.screen()).not.toContain("Do you want to");
    expect(readFileSync(join(t.cwd, "notes.txt"), "utf8")).toBe("hi\n");
    t.m.press("shift-tab");
    await t.m.waitFor("plan mode on");
    t.m.press("shift-tab");
    await t.m.waitFor(() => !/plan mode on|accept edits on/.test(t.m.screen().split("\n").at(-1) ?? ""));
    await quit(t.m);
  });

  it("started in bypassPermissions, Shift-Tab's cycle keeps it: default, accept edits, plan, then bypass again", async () => {
    const t = await start(
      { script: [] },
      { args: ["--permission-mode", "bypassPermissions"], size: { cols: 140 } },
    );
    const status = () => t.m.screen().split("\n").at(-1) ?? "";
    await t.m.waitFor(() => status().includes("bypass permissions on"));
    t.m.press("shift-tab");
    await t.m.waitFor(() => !/bypass permissions on|accept edits on|plan mode on/.test(status()));
    t.m.press("shift-tab");
    await t.m.waitFor(() => status().includes("accept edits on"));
    t.m.press("shift-tab");
    await t.m.waitFor(() => status().includes("plan mode on"));
    t.m.press("shift-tab");
    await t.m.waitFor(() => status().includes("bypass permissions on"));
    await quit(t.m);
  });

  it("!cmd runs a shell command; its output goes with the next prompt; on exit mitsu says how to resume", async () => {
    const t = await start({ script: [text("Seen it.")] });
    await send(t.m, "!echo bang-output-42");
    await t.m.waitFor(/^bang-output-42$/m);
    expect(t.sim.requests).toHaveLength(0);
    await send(t.m, "what did it print?");
    await t.m.waitFor("Seen it.");
    const sent = JSON.stringify(t.sim.requests[0]?.body.messages.at(-1));
    expect(sent).toContain("<bash-input>echo bang-output-42</bash-input>");
    expect(sent).toContain("<bash-stdout>bang-output-42</bash-stdout>");
    expect(sent).toContain("what did it print?");
    await quit(t.m);
    const projects = join(t.home, ".mitsu", "projects");
    const sessions = readdirSync(join(projects, readdirSync(projects)[0]!, "sessions"));
    const id = JSON.parse(
      readFileSync(join(projects, readdirSync(projects)[0]!, "sessions", sessions[0]!), "utf8").split(
        "\n",
      )[0]!,
    ).id;
    expect(t.m.screen()).toContain(`resume this conversation with: mitsu -r ${id}`);
  });

  it("Ctrl-R searches earlier prompts; Esc Esc opens rewind; /help lists the keys", async () => {
    const t = await start({ script: [text("First."), text("Second."), text("Again.")] });
    await send(t.m, "alpha prompt");
    await t.m.waitFor("First.");
    await send(t.m, "beta prompt");
    await t.m.waitFor("Second.");
    t.m.press("ctrl-r");
    await t.m.waitFor("search history:");
    await t.m.type("alp");
    await t.m.waitFor(/search history: alp/);
    t.m.press("enter");
    await t.m.waitFor(() => !t.m.screen().includes("search history:"));
    t.m.press("enter");
    await t.m.waitFor("Again.");
    expect(userTexts(t.sim, 2).at(-1)).toBe("alpha prompt");
    t.m.press("escape");
    t.m.press("escape");
    await t.m.waitFor("rewind to which prompt?");
    expect(t.m.screen()).toMatch(/1\. alpha prompt/);
    t.m.press("enter");
    await send(t.m, "/help");
    await t.m.waitFor("Keys");
    await t.m.waitFor("Shift-Tab");
    const rows = t.m.screen().split("\n");
    const column = (name: string) => {
      const row = rows.find((r) => r.startsWith(`  ${name} `)) ?? "";
      return row.length - row.slice(name.length + 2).trimStart().length;
    };
    expect(column("/clear")).toBe(column("Shift-Tab"));
    await quit(t.m);
  });

  it("a Write's and an Edit's input is not repeated: it streams, goes, and the dialog and the result show it once", async () => {
    const content = Array.from({ length: 30 }, (_, i) => `row ${i + 1} of the file`).join("\n");
    const tool = (name: string, input: Record<string, string>) => ({
      content: [{ type: "tool_use" as const, name, input }],
    });
    const t = await start(
      {
        script: [
          tool("Write", { file_path: "big.txt", content: `${content}\n` }),
          tool("Edit", {
            file_path: "big.txt",
            old_string: "row 3 of the file",
            new_string: "row three, edited",
          }),
          text("Both done."),
        ],
      },
      { size: { rows: 40 } },
    );
    await send(t.m, "write and edit");
    await t.m.waitFor("Do you want to proceed?");
    // The dialog's title is on screen, not pushed off by the file's content printed above it.
    await t.m.waitFor("Create file big.txt");
    t.m.press("enter");
    await t.m.waitFor("Do you want to proceed?");
    await t.m.waitFor("row three, edited");
    t.m.press("enter");
    await t.m.waitFor("Both done.");
    const screen = t.m.screen();
    expect(screen).toContain("Created big.txt (30 lines");
    // No raw input above the calls (`content: row 1…`, `new_string: …`); the edit's diff once, in its result.
    expect(screen).not.toMatch(/content: |new_string: /);
    expect(screen.split("+row three, edited").length - 1).toBe(1);
    await quit(t.m);
  });

  it("Ctrl-O shows every collapsed output whole (the full transcript), and again in part", async () => {
    const t = await start({
      script: [bash("seq 1 40; sleep 0"), bash("seq 101 140; sleep 0"), text("Counted twice.")],
    });
    await send(t.m, "count twice");
    await t.m.waitFor("Do you want to proceed?");
    t.m.press("enter");
    await t.m.waitFor(/seq 101 140[\s\S]*Do you want to proceed\?/);
    t.m.press("enter");
    await t.m.waitFor("Counted twice.");
    expect(t.m.screen()).not.toMatch(/^\s+20$/m);
    expect(t.m.screen()).not.toMatch(/^\s+120$/m);
    t.m.press("ctrl-o");
    await t.m.waitFor(() => /^\s+20$/m.test(t.m.screen()) && /^\s+120$/m.test(t.m.screen()));
    t.m.press("ctrl-o");
    await t.m.waitFor(() => !/^\s+20$/m.test(t.m.screen()) && !/^\s+120$/m.test(t.m.screen()));
    await quit(t.m);
  });

  it("a resized terminal draws the answers again at the new width: a table fits, a paragraph unwraps", async () => {
    const paragraph = `Resizing ${"works well enough ".repeat(6)}end.`;
    const table = "| name | value |\n|---|---|\n| alpha | one two three four five six seven eight nine |\n";
    const t = await start({ script: [text(`${paragraph}\n\n${table}`)] }, { size: { cols: 60, rows: 30 } });
    await send(t.m, "draw");
    await t.m.waitFor(/ out/);
    const onOneRow = () =>
      t.m
        .screen()
        .split("\n")
        .some((row) => row.includes("Resizing") && row.includes("end."));
    expect(onOneRow()).toBe(false);
    t.m.resize(200, 30);
    await t.m.waitFor(onOneRow);
    t.m.resize(40, 30);
    // At 40 columns the table is drawn for 40 columns: each of its rows fits and keeps its borders.
    await t.m.waitFor(() => {
      const rows = t.m
        .screen()
        .split("\n")
        .filter((row) => /[│┌└├]/.test(row));
      return rows.length > 0 && rows.every((row) => row.length <= 40 && /[│┐┘┤]\s*$/.test(row));
    });
    await quit(t.m);
  });

  it("a large paste counts its lines right; the status line follows /model; a waiting question says so", async () => {
    const t = await start({ script: [text("Pasted."), bash("sleep 0; echo x"), text("Ran.")] });
    const pasted = `${Array.from({ length: 20 }, (_, i) => `pasted line ${i + 1}`).join("\n")}\n`;
    t.m.paste(pasted);
    await t.m.waitFor("[paste #1 +20 lines]");
    t.m.press("enter");
    await t.m.waitFor("Pasted.");
    expect(userTexts(t.sim, 0).at(-1)?.split("\n")).toHaveLength(20);
    await send(t.m, "/model claude-opus-5-5");
    await t.m.waitFor(/^anthropic:claude-opus-5-5 · /m);
    await send(t.m, "run");
    await t.m.waitFor("Do you want to proceed?");
    await t.m.waitFor("Waiting for your answer");
    expect(t.m.screen()).not.toContain("Running Bash…");
    t.m.press("enter");
    await t.m.waitFor("Ran.");
    await quit(t.m);
  });

  it("/resume is a searchable list titled by the prompt as typed (Esc cancels, a pick shows its recap); /model lists the models", async () => {
    const t = await start({ script: [text("Read it."), text("Other."), text("Back.")] });
    await send(t.m, "summarise @README.md");
    await t.m.waitFor("Read it.");
    await send(t.m, "/clear");
    await t.m.waitFor("(a new conversation)");
    await send(t.m, "other topic");
    await t.m.waitFor("Other.");
    await send(t.m, "/resume");
    await t.m.waitFor("Resume a conversation");
    await t.m.waitFor("summarise README.md");
    expect(t.m.screen()).not.toContain("<file path");
    expect(t.m.screen()).toMatch(/summarise README\.md\s+\S+ ago · 1 turn · \$/);
    t.m.press("escape");
    await t.m.waitFor(() => !t.m.screen().includes("type to search"));
    await send(t.m, "/resume");
    await t.m.waitFor("Resume a conversation");
    await t.m.type("summ");
    await t.m.waitFor("search: summ");
    t.m.press("enter");
    await t.m.waitFor(/resumed \d+ messages[\s\S]*> summarise README\.md\nRead it\./);
    await send(t.m, "/model");
    await t.m.waitFor("Switch the model");
    expect(t.m.screen()).toContain("anthropic:claude-opus-5-5");
    await t.m.type("opus-5-5");
    t.m.press("enter");
    await t.m.waitFor(/^anthropic:claude-opus-5-5 · /m);
    await send(t.m, "back");
    await t.m.waitFor("Back.");
    await quit(t.m);
    expect(JSON.stringify(t.sim.requests[2]?.body.messages)).toContain("summarise README.md");
    expect(t.sim.requests[2]?.body.model).toBe("claude-opus-5-5");
  });

  it("a retry is said while it waits and goes once the answer comes", async () => {
    const t = await start({
      script: [
        {
          content: [{ type: "text" as const, text: "After the retry." }],
          fault: { kind: "http", status: 529, retryAfterMs: 1500 },
        },
      ],
    });
    await send(t.m, "hi");
    await t.m.waitFor("retrying in");
    await t.m.waitFor("After the retry.");
    await t.m.waitFor(/ out/);
    expect(t.m.screen()).not.toContain("retrying in");
    await quit(t.m);
  });

  it("Ctrl-C twice at an empty prompt leaves", async () => {
    const t = await start({ script: [] });
    t.m.press("ctrl-c");
    await t.m.waitFor("Ctrl-C again");
    t.m.press("ctrl-c");
    expect(await t.m.exit).toBe(0);
  });

  it("a narrow terminal: wide text, a long command's question and /help all fit, nothing crashes", async () => {
    const wide = `一二三四五六七八九十 🙂🙂🙂 ${"x".repeat(120)}\tTAB | a | b |\n\n| col | col |\n|---|---|\n| 一二三 | ${"y".repeat(60)} |\n`;
    const { m } = await start(
      { script: [text(wide), bash(`sleep 0; echo ${"long-argument ".repeat(12)}`), text("Fine.")] },
      { size: { cols: 32, rows: 20 }, ready: "/help" },
    );
    await send(m, "wide");
    await m.waitFor(/ out/);
    await send(m, "run");
    await m.waitFor("Do you want to proceed?");
    await m.type("1");
    await m.waitFor("Fine.");
    // Narrower still: everything is drawn again at the new width.
    m.resize(24, 20);
    await send(m, "/help");
    const fits = () =>
      m
        .screen()
        .split("\n")
        .every((row) => row.length <= 24);
    await m.waitFor(() => m.screen().includes("leave mitsu") && fits());
    for (const row of m.screen().split("\n")) expect(row.length).toBeLessThanOrEqual(24);
    await quit(m);
  });

  it("an answer shows as it streams, before its line or paragraph is finished, and stays drawn as Markdown", async () => {
    const t = await start({
      script: [text("Streaming **slowly**, one piece at a time, to the end.")],
      textChunk: 4,
      delayMs: 60,
    });
    await send(t.m, "stream");
    await t.m.waitFor("Streaming");
    expect(t.m.screen()).not.toContain("to the end.");
    await t.m.waitFor("Streaming slowly, one piece at a time, to the end.");
    expect(t.m.screen()).not.toContain("**");
    await quit(t.m);
  });

  it("a task list updated by the next TodoWrite is drawn over, not left stale: in one answer or the next", async () => {
    const task = (content: string, status: string) => ({ content, activeForm: `${content}ing`, status });
    const todoWrite = (...todos: ReturnType<typeof task>[]) => ({
      type: "tool_use" as const,
      name: "TodoWrite",
      input: { todos },
    });
    const t = await start({
      script: [
        // Two calls in one answer (both start before either ends), then a third in the next answer.
        {
          content: [
            todoWrite(task("Plan", "in_progress"), task("Build", "pending")),
            todoWrite(task("Plan", "completed"), task("Build", "in_progress")),
          ],
        },
        {
          content: [
            todoWrite(task("Plan", "completed"), task("Build", "completed"), task("Ship", "in_progress")),
          ],
        },
        text("All planned."),
      ],
    });
    await send(t.m, "plan");
    await t.m.waitFor("All planned.");
    const screen = t.m.screen();
    expect(screen.match(/● TodoWrite/g)).toHaveLength(1);
    expect(screen).toContain("☒ Build");
    expect(screen).toContain("◼ Shiping");
    expect(screen).not.toContain("◼ Planing");
    expect(screen).not.toContain("◼ Building");
    await quit(t.m);
  });

  it("an answer streamed in many small frames leaves the screen a full redraw draws", async () => {
    const paragraph = "The parser now reads **each line once** and keeps the `offsets` it found. ".repeat(5);
    const answer = [
      "## What changed",
      paragraph,
      "1. `readHeader` stops at the first blank line.",
      "2. **splitFields** returns slices.",
      "```ts",
      'const end = text.indexOf("\\n\\n");',
      "```",
      "| case | before | after |",
      "|---|---|---|",
      "| 1 MB | 41 ms | 12 ms |",
      paragraph,
      paragraph,
      "That is all.",
    ].join("\n\n");
    // Longer than the screen: rows scroll away while the editor and status lines are moved under the answer.
    const t = await start({ script: [text(answer)], textChunk: 5, delayMs: 4 });
    await send(t.m, "explain");
    await t.m.waitFor(/That is all\.[\s\S]*· \d+\.\ds ·/);
    const drawn = t.m.screen();
    // A new width draws everything again (pi-tui's full redraw), and the old width once more: the same screen.
    t.m.resize(60, 30);
    // mitsu's own lines at 60 columns: the welcome wrapped at a word (the emulator's reflow cuts mid-word).
    await t.m.waitFor(/\ntrusted\n/);
    t.m.resize(100, 30);
    await t.m
      .waitFor(() => t.m.screen() === drawn, 10_000)
      .catch(() => {
        expect(t.m.screen()).toBe(drawn);
      });
    await quit(t.m);
  });
});
