import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { memoryDir } from "../../src/context/index.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("the persistent memory folder", () => {
  it("is named in the system prompt, and the model may Write and Read there without asking", async () => {
    const { cwd, home } = tempWorkspace();
    const memory = join(memoryDir({ cwd, home }), "MEMORY.md");
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              name: "Write",
              input: { file_path: memory, content: "- tests: node --test\n" },
            },
          ],
        },
        { content: [{ type: "tool_use", name: "Read", input: { file_path: memory } }] },
        { content: [{ type: "text", text: "Noted." }] },
      ],
    });
    sim = s.sim;
    const out = await runMitsu(["-p", "remember how to run the tests"], { cwd, home, env: s.env });
    expect(out.code).toBe(0);
    expect(JSON.stringify(sim.requests[0]?.body.system)).toContain(memoryDir({ cwd, home }));
    expect(readFileSync(memory, "utf8")).toBe("- tests: node --test\n");
    const read = sim.requests[2]?.body.messages.at(-1).content[0];
    expect(read.is_error).toBeUndefined();
    expect(JSON.stringify(read.content)).toContain("tests: node --test");
  });

  it("is the only folder outside the workspace that Write reaches without asking", async () => {
    const { cwd, home, root } = tempWorkspace();
    const elsewhere = join(root, "elsewhere.md");
    const s = await simulatorEnv({
      script: [
        { content: [{ type: "tool_use", name: "Write", input: { file_path: elsewhere, content: "x" } }] },
        { content: [{ type: "text", text: "Could not." }] },
      ],
    });
    sim = s.sim;
    await runMitsu(["-p", "write elsewhere"], { cwd, home, env: s.env });
    expect(existsSync(elsewhere)).toBe(false);
    expect(sim.requests[1]?.body.messages.at(-1).content[0].content).toContain("outside the workspace");
  });
});
