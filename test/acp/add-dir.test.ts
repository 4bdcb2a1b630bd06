import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answerText, MITSU_BIN, offeredCommands, startAcp } from "./acp-harness.js";

describe.skipIf(!existsSync(MITSU_BIN))("mitsu acp: /add-dir", () => {
  it("is offered, adds the folder without a model call, and the next Read in it works without a question", async () => {
    const run = await startAcp([]);
    const extra = join(run.cwd, "..", "extra");
    mkdirSync(extra);
    writeFileSync(join(extra, "notes.txt"), "EXTRA-NOTES\n");
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const names = await offeredCommands(run, sessionId);
    expect(names).toContain("add-dir");
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/add-dir ../extra" }],
    });
    expect(run.sim.requests.length).toBe(0);
    expect(answerText(run, sessionId)).toContain("to the workspace for this session");
    run.sim.enqueue(
      {
        content: [
          { type: "tool_use", id: "r1", name: "Read", input: { file_path: join(extra, "notes.txt") } },
        ],
      },
      { content: [{ type: "text", text: "Read it." }] },
    );
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read the notes" }],
    });
    expect(run.asked).toEqual([]);
    expect(JSON.stringify(run.sim.requests.at(-1)?.body.messages.at(-1))).toContain("EXTRA-NOTES");
  });
});
