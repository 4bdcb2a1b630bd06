import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import type { Simulator } from "../../src/simulator/index.js";
import { runMitsu, simulatorEnv, tempWorkspace } from "./cli-harness.js";

const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

function sessionLines(
  home: string,
): Array<{ type: string; toolUseId?: string; result?: { tool_use_id: string } }> {
  const projects = join(home, ".mitsu", "projects");
  if (!existsSync(projects)) return [];
  for (const project of readdirSync(projects)) {
    const dir = join(projects, project, "sessions");
    if (!existsSync(dir)) continue;
    // Session files only: a session's checkpoints (of Write and Edit) are a folder beside its file.
    const [file] = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
    if (!file) continue;
    return readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter((line) => line.endsWith("}"))
      .map((line) => JSON.parse(line));
  }
  return [];
}

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("resume after kill -9", () => {
  it("a Write that finished before the kill is reported with its result; a running Bash as state unknown", async () => {
    // Regression: after kill -9, a Write that had finished was reported to the model as "did not run".
    const s = await simulatorEnv({
      script: [
        {
          content: [
            {
              type: "tool_use",
              id: "toolu_write",
              name: "Write",
              input: { file_path: "done.txt", content: "hi\n" },
            },
            { type: "tool_use", id: "toolu_bash", name: "Bash", input: { command: "sleep 30" } },
          ],
        },
        { content: [{ type: "text", text: "Checked." }] },
      ],
    });
    sim = s.sim;
    const { cwd, home } = tempWorkspace();
    const child = spawn(
      process.execPath,
      [BIN, "-p", "--permission-mode", "bypassPermissions", "write and wait"],
      {
        cwd,
        env: { PATH: process.env.PATH, HOME: home, ...s.env },
        stdio: "ignore",
      },
    );
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      await until(() => {
        const lines = sessionLines(home);
        return (
          lines.some((l) => l.type === "tool-result" && l.result?.tool_use_id === "toolu_write") &&
          lines.some((l) => l.type === "tool-start" && l.toolUseId === "toolu_bash")
        );
      });
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
    expect(readFileSync(join(cwd, "done.txt"), "utf8")).toBe("hi\n");

    const resumed = await runMitsu(["-p", "-c", "what happened?"], { cwd, home, env: s.env });
    expect(resumed.code).toBe(0);
    const messages = sim.requests[1]?.body.messages;
    expect(checkTranscript(messages)).toEqual([]);
    const answers = messages[2].content;
    const write = answers.find((b: { tool_use_id: string }) => b.tool_use_id === "toolu_write");
    const bash = answers.find((b: { tool_use_id: string }) => b.tool_use_id === "toolu_bash");
    expect(write.is_error ?? false).toBe(false);
    expect(JSON.stringify(write.content)).not.toContain("did not run");
    expect(bash).toMatchObject({
      is_error: true,
      content: "state unknown: the session stopped while this call was running; check before retrying",
    });
  }, 40_000);
});
