import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { Simulator } from "../../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "../cli-harness.js";

class FakeTty extends PassThrough {
  isTTY = true;
}

/** A terminal screen: what mitsu writes, raw (escape sequences kept). */
class Screen extends Writable {
  raw = "";
  isTTY = true;
  columns = 60;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.raw += chunk.toString("utf8");
    done();
  }
  get text(): string {
    return this.raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
  }
}

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const ANSWER =
  "# Summary\n\nThe **fix** is in `a.ts`.\n\n| file | lines |\n|---|--:|\n| a.ts | 12 |\n\n> note \u001b]0;title\u0007 this\n\n```ts\nconst x = 1;\n```\n";

describe("answers as Markdown", () => {
  it("at a terminal, the answer is drawn: no `#`, `**`, fences or pipes; a box table; a bar quote; no smuggled sequence", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: ANSWER }] }] });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const keyboard = new FakeTty();
    const screen = new Screen();
    const exit = main(["explain"], {
      stdin: keyboard,
      stdout: screen,
      stderr: new Screen(),
      cwd,
      home,
      env: { PATH: process.env.PATH, ...s.env },
    });
    for (let i = 0; i < 400 && !screen.text.includes("const x = 1;"); i++)
      await new Promise((r) => setTimeout(r, 20));
    keyboard.write("/exit\r");
    expect(await exit).toBe(0);
    const text = screen.text;
    expect(text).toContain("Summary\n\nThe fix");
    expect(text).not.toContain("# Summary");
    expect(text).toContain("The fix is in a.ts.");
    expect(text).toContain("│ a.ts │    12 │");
    expect(text).toContain("│ note this");
    expect(text).toContain("  const x = 1;");
    expect(text).not.toContain("```");
    expect(screen.raw).not.toContain("\u001b]0;");
  });

  it("print mode (-p) keeps the Markdown as written: scripts read it", async () => {
    const s = await simulatorEnv({ script: [{ content: [{ type: "text", text: "# Title\n\n**bold**" }] }] });
    sim = s.sim;
    const result = await runMitsu(["-p", "hi"], { ...tempWorkspace(), env: s.env });
    expect(result.stdout).toContain("# Title\n\n**bold**");
  });
});
