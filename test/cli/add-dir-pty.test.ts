import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Simulator } from "../../src/simulator/index.js";
import { ptyRuns } from "../support/pty.js";
import { simulatorEnv, tempWorkspace } from "./cli-harness.js";

const pty = ptyRuns();

/** The text of the tool_result that answered `id`, from the requests the simulator received. */
function resultOf(s: Simulator, id: string): string {
  for (const request of s.requests)
    for (const message of request.body.messages as { content: unknown }[])
      if (Array.isArray(message.content))
        for (const block of message.content as { type: string; tool_use_id?: string }[])
          if (block.type === "tool_result" && block.tool_use_id === id) return JSON.stringify(block);
  throw new Error(`no tool_result for ${id}`);
}

describe("/add-dir at the terminal", () => {
  it("adds the folder at once: the next Read in it works in the same session; --remember saves it", async () => {
    const where = tempWorkspace();
    const extra = join(where.root, "extra");
    mkdirSync(extra);
    writeFileSync(join(extra, "notes.txt"), "EXTRA-NOTES\n");
    mkdirSync(join(where.home, ".mitsu"), { recursive: true });
    const s = await simulatorEnv({
      script: [
        {
          content: [
            { type: "tool_use", id: "r1", name: "Read", input: { file_path: join(extra, "notes.txt") } },
          ],
        },
        { content: [{ type: "text", text: "Read it." }] },
      ],
    });
    pty.serve(s);
    const m = pty.spawn([], { cwd: where.cwd, env: { PATH: process.env.PATH, HOME: where.home, ...s.env } });
    await m.waitFor("/help for commands");
    await m.type("/add-dir ../extra --remember");
    m.press("enter");
    await m.waitFor("to the workspace for this session");
    await m.type("read the notes");
    m.press("enter");
    await m.waitFor("Read it.");
    expect(resultOf(s.sim, "r1")).toContain("EXTRA-NOTES");
    const local = JSON.parse(readFileSync(join(where.cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(local.permissions.additionalDirectories).toHaveLength(1);
    expect(local.permissions.additionalDirectories[0]).toMatch(/extra$/);
  });

  it("refuses a path that is not a folder, and adds nothing", async () => {
    const where = tempWorkspace();
    const s = await simulatorEnv({ script: [] });
    pty.serve(s);
    const m = pty.spawn([], { cwd: where.cwd, env: { PATH: process.env.PATH, HOME: where.home, ...s.env } });
    await m.waitFor("/help for commands");
    await m.type("/add-dir ../nowhere");
    m.press("enter");
    await m.waitFor("does not exist; no folder added");
  });
});
