import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { answerText, MITSU_BIN, sessionLogs, startAcp, updatesOf } from "./acp-harness.js";

const README = "README.md";

/** The model reads README.md, edits it, then answers. */
const editScript = (cwd: string) => [
  {
    content: [
      { type: "thinking" as const, thinking: "Let me look at the README first." },
      { type: "tool_use" as const, id: "toolu_read", name: "Read", input: { file_path: join(cwd, README) } },
    ],
  },
  {
    content: [
      {
        type: "tool_use" as const,
        id: "toolu_edit",
        name: "Edit",
        input: {
          file_path: join(cwd, README),
          old_string: "# demo-workspace",
          new_string: "# Demo workspace",
        },
      },
    ],
  },
  { content: [{ type: "text" as const, text: "I changed the title of README.md." }] },
];

describe.skipIf(!existsSync(MITSU_BIN))("mitsu acp: a full edit session through the SDK's client", () => {
  it("streams thinking, shows the Edit's diff, asks, writes the file once allowed and streams the answer", async () => {
    let cwd = "";
    const run = await startAcp([], {
      permission: (request) => {
        expect(request.toolCall.kind).toBe("edit");
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      },
    });
    cwd = run.cwd;
    run.sim.enqueue(...editScript(cwd));
    const { sessionId, modes, configOptions } = await run.connection.agent.request("session/new", {
      cwd,
      mcpServers: [],
    });
    expect(modes?.currentModeId).toBe("default");
    expect(modes?.availableModes.map((m) => m.id)).toEqual([
      "default",
      "acceptEdits",
      "bypassPermissions",
      "plan",
    ]);
    expect(configOptions?.[0]).toMatchObject({ id: "model", category: "model", currentValue: "default" });

    const response = await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Fix the README title" }],
    });
    expect(response.stopReason).toBe("end_turn");

    // The file is written.
    expect(readFileSync(join(cwd, README), "utf8")).toContain("# Demo workspace");
    // Thinking and the answer streamed.
    expect(
      updatesOf(run, sessionId, "agent_thought_chunk")
        .map((u) => (u.content.type === "text" ? u.content.text : ""))
        .join(""),
    ).toBe("Let me look at the README first.");
    expect(answerText(run, sessionId)).toBe("I changed the title of README.md.");
    // How full the context is, after the prompt.
    const usage = updatesOf(run, sessionId, "usage_update").at(-1);
    expect(usage?.used).toBeGreaterThan(0);
    expect(usage?.size).toBeGreaterThan(usage?.used ?? 0);
    // The Read: kind read, its location.
    const calls = updatesOf(run, sessionId, "tool_call");
    const read = calls.find((c) => c.toolCallId === "toolu_read");
    expect(read).toBeDefined();
    const readFull = [...calls, ...updatesOf(run, sessionId, "tool_call_update")].filter(
      (u) => u.toolCallId === "toolu_read",
    );
    expect(readFull.some((u) => u.kind === "read" && u.locations?.[0]?.path === join(cwd, README))).toBe(
      true,
    );
    // The Edit: an ACP diff of the whole file, with the line it changes; asked; then completed.
    const edit = [...calls, ...updatesOf(run, sessionId, "tool_call_update")].filter(
      (u) => u.toolCallId === "toolu_edit",
    );
    const withDiff = edit.find((u) => u.content?.some((c) => c.type === "diff"));
    const diff = withDiff?.content?.find((c) => c.type === "diff");
    expect(diff).toMatchObject({ type: "diff", path: join(cwd, README) });
    expect(diff && "oldText" in diff ? diff.oldText : "").toContain("# demo-workspace");
    expect(diff && "newText" in diff ? diff.newText : "").toContain("# Demo workspace");
    expect(withDiff?.locations?.[0]).toEqual({ path: join(cwd, README), line: 1 });
    expect(run.asked).toHaveLength(1);
    expect(run.asked[0]?.toolCall.toolCallId).toBe("toolu_edit");
    expect(run.asked[0]?.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    expect(edit.at(-1)?.status).toBe("completed");

    // The session has its own log, in the project's sessions folder, whose header carries the session id.
    expect(sessionLogs(run.home).filter((text) => text.includes(`"id":"${sessionId}"`))).toHaveLength(1);
  });

  it("a rejected permission leaves the file unchanged and the model is told", async () => {
    const run = await startAcp([]);
    run.sim.enqueue(...editScript(run.cwd).slice(0, 2), {
      content: [{ type: "text", text: "Understood, I left it." }],
    });
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const response = await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Fix the README title" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(readFileSync(join(run.cwd, README), "utf8")).toContain("# demo-workspace");
    const last = updatesOf(run, sessionId, "tool_call_update")
      .filter((u) => u.toolCallId === "toolu_edit")
      .at(-1);
    expect(last?.status).toBe("failed");
    // The model's next request carries the denial as the Edit's result.
    const body = JSON.stringify(run.sim.requests.at(-1)?.body);
    expect(body).toContain("denied permission");
  });
});
