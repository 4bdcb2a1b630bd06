import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
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

describe("/compact and inspect --compact", () => {
  it("/compact <focus> at the terminal summarises the session, says what it freed, and the log keeps it; inspect --compact -c shows the next one without sending", async () => {
    const s = await simulatorEnv({
      script: [
        text("The temperature module converts units."),
        text("<summary>The user asked what the module does.</summary>"),
        text("Still here."),
      ],
    });
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
    const type = (line: string) => keyboard.write(`${line}\r`);
    type("what does this project do?");
    await screen.waitFor("converts units.");
    // The status line after the run: model, context used, the last request's cache-hit share, the cost.
    await screen.waitFor("anthropic:claude-sonnet-5-5 · context ");
    expect(screen.text).toMatch(/context \d+% of 200k · cache \d+% · \$0\.\d+/);
    type("/context");
    await screen.waitFor("total reminders");
    expect(screen.text).toMatch(
      /context: ~[\d,]+ of 200,000 tokens \(\d+%\); the last request was [\d,]+; compaction at ~152,000/,
    );
    expect(screen.text).toContain("tools[0] Read");
    type("/compact keep the module names");
    await screen.waitFor("compacted: 2 messages → ");
    expect(screen.text).toContain("% of its input read from the cache");
    const summaryRequest = sim.requests.at(-1)?.body;
    expect(JSON.stringify(summaryRequest.messages.at(-1))).toContain("focus on: keep the module names");
    type("and now?");
    await screen.waitFor("Still here.");
    const next = sim.requests.at(-1)?.body;
    expect(JSON.stringify(next.messages[0])).toContain("The user asked what the module does.");
    type("/exit");
    expect(await exit).toBe(0);

    const dirs = readdirSync(join(home, ".mitsu", "projects"));
    const folder = join(home, ".mitsu", "projects", dirs[0] as string, "sessions");
    const file = join(folder, readdirSync(folder)[0] as string);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.find((l) => l.type === "compaction")?.summary).toBe("The user asked what the module does.");

    const count = sim.requests.length;
    const shown = await runMitsu(["inspect", "--compact", "-c"], { cwd, home, env: s.env });
    expect(shown.code).toBe(0);
    expect(sim.requests.length).toBe(count);
    expect(shown.stdout).toContain("about to be compacted");
    expect(shown.stdout).toContain("history after compaction");
    expect(shown.stdout).toContain('"Still here."');
  });

  it("inspect --compact without a session says how to name one", async () => {
    const { cwd, home } = tempWorkspace();
    const shown = await runMitsu(["inspect", "--compact"], { cwd, home });
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain("add -c or -r <file>");
  });
});
