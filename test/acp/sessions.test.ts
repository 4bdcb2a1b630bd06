import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  answerText,
  MITSU_BIN,
  offeredCommands,
  sessionLogs,
  startAcp,
  updatesOf,
  waitFor,
} from "./acp-harness.js";

describe.skipIf(!existsSync(MITSU_BIN))("mitsu acp: sessions", () => {
  it("runs many sessions in one process, each with its own log; a client that goes away ends them and the process", async () => {
    const run = await startAcp([]);
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "r1", name: "Read", input: { file_path: "README.md" } }] },
      { content: [{ type: "text", text: "First session's answer." }] },
      { content: [{ type: "text", text: "Second session's answer." }] },
    );
    const a = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const b = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    expect(a.sessionId).not.toBe(b.sessionId);
    await run.connection.agent.request("session/prompt", {
      sessionId: a.sessionId,
      prompt: [{ type: "text", text: "Question one" }],
    });
    await run.connection.agent.request("session/prompt", {
      sessionId: b.sessionId,
      prompt: [{ type: "text", text: "Question two" }],
    });
    expect(answerText(run, a.sessionId)).toBe("First session's answer.");
    expect(updatesOf(run, a.sessionId, "session_info_update")[0]?.title).toBe("Question one");
    // session/list: this workspace's sessions, newest first, titled by their first prompt.
    const listed = await run.connection.agent.request("session/list", { cwd: run.cwd });
    expect(listed.sessions.map((s) => s.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(listed.sessions.find((s) => s.sessionId === b.sessionId)?.title).toBe("Question two");
    expect(answerText(run, b.sessionId)).toBe("Second session's answer.");
    const logs = sessionLogs(run.home);
    expect(logs).toHaveLength(2);
    expect(logs.filter((l) => l.includes(a.sessionId) && l.includes("Question one"))).toHaveLength(1);
    expect(logs.filter((l) => l.includes(b.sessionId) && l.includes("Question two"))).toHaveLength(1);

    // The client goes away: the process ends, cleanly.
    run.connection.close();
    run.child.stdin?.end();
    expect(await run.exited).toBe(0);
  });

  it("a client that disconnects mid-command ends the run: the command's processes stop and the process exits", async () => {
    const run = await startAcp([], {}, { args: ["--permission-mode", "bypassPermissions"] });
    run.sim.enqueue({
      content: [
        { type: "tool_use", id: "hang", name: "Bash", input: { command: "echo $$ > shell.pid; sleep 60" } },
      ],
    });
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    void run.connection.agent
      .request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hang" }] })
      .catch(() => undefined);
    const pidFile = join(run.cwd, "shell.pid");
    await waitFor(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "",
      20_000,
      "the command",
    );
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    const started = Date.now();
    run.connection.close();
    run.child.stdin?.end();
    expect(await run.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(() => process.kill(pid, 0)).toThrow();
    // The log is whole: the call that was running is answered in it.
    const log = sessionLogs(run.home).find((text) => text.includes(sessionId)) ?? "";
    expect(log).toContain('"type":"tool-result","result":{"type":"tool_result","tool_use_id":"hang"');
  });

  it("session/load replays the conversation as updates before answering, then the session goes on", async () => {
    const first = await startAcp([
      { content: [{ type: "tool_use", id: "r1", name: "Read", input: { file_path: "README.md" } }] },
      { content: [{ type: "text", text: "The README is short." }] },
      { content: [{ type: "text", text: "Continued after load." }] },
    ]);
    const { sessionId } = await first.connection.agent.request("session/new", {
      cwd: first.cwd,
      mcpServers: [],
    });
    await first.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "What is in the README?" }],
    });
    first.connection.close();
    first.child.stdin?.end();
    expect(await first.exited).toBe(0);

    const second = await startAcp([], {}, { reuse: { cwd: first.cwd, home: first.home, sim: first.sim } });
    const loaded = await second.connection.agent.request("session/load", {
      sessionId,
      cwd: first.cwd,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("default");
    // Replayed before the answer: the user's words, the call and its result, the answer.
    expect(updatesOf(second, sessionId, "user_message_chunk").map((u) => u.content)).toEqual([
      { type: "text", text: "What is in the README?" },
    ]);
    const call = updatesOf(second, sessionId, "tool_call").find((c) => c.toolCallId === "r1");
    expect(call).toMatchObject({ kind: "read" });
    expect(updatesOf(second, sessionId, "tool_call_update").find((u) => u.toolCallId === "r1")?.status).toBe(
      "completed",
    );
    expect(answerText(second, sessionId)).toBe("The README is short.");
    await second.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "And then?" }],
    });
    expect(answerText(second, sessionId)).toBe("The README is short.Continued after load.");
    // The loaded session went on in the same log: the old question is in the request.
    expect(JSON.stringify(first.sim.requests.at(-1)?.body)).toContain("What is in the README?");
    // An id of no session, and one that is not an id at all (never a path), are "not found".
    for (const id of ["00000000-0000-4000-8000-000000000000", "../../../etc/passwd"]) {
      await expect(
        second.connection.agent.request("session/load", { sessionId: id, cwd: first.cwd, mcpServers: [] }),
      ).rejects.toMatchObject({ code: -32002 });
    }
  });

  it("session/resume continues a session without replaying it; additionalDirectories are workspace folders", async () => {
    const first = await startAcp([{ content: [{ type: "text", text: "Noted." }] }]);
    const { sessionId } = await first.connection.agent.request("session/new", {
      cwd: first.cwd,
      mcpServers: [],
    });
    await first.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Remember this" }],
    });
    first.connection.close();
    first.child.stdin?.end();
    await first.exited;
    const extra = join(first.cwd, "..", "extra");
    mkdirSync(extra);
    writeFileSync(join(extra, "notes.txt"), "in the other folder\n");
    const second = await startAcp(
      [
        {
          content: [
            { type: "tool_use", id: "x", name: "Read", input: { file_path: join(extra, "notes.txt") } },
          ],
        },
        { content: [{ type: "text", text: "Read it." }] },
      ],
      {},
      { reuse: { cwd: first.cwd, home: first.home, sim: first.sim } },
    );
    const resumed = await second.connection.agent.request("session/resume", {
      sessionId,
      cwd: first.cwd,
      additionalDirectories: [extra],
    });
    expect(resumed.modes?.currentModeId).toBe("default");
    await second.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Read the notes" }],
    });
    // Nothing was replayed; the conversation went on (its first prompt is in the request); the file was read.
    expect(updatesOf(second, sessionId, "user_message_chunk")).toEqual([]);
    const sent = JSON.stringify(first.sim.requests.at(-1)?.body);
    expect(sent).toContain("Remember this");
    expect(sent).toContain("in the other folder");
    await expect(
      second.connection.agent.request("session/new", {
        cwd: first.cwd,
        mcpServers: [],
        additionalDirectories: ["rel"],
      }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("set_mode switches the permission mode (current_mode_update); allow always is saved as at the terminal", async () => {
    const run = await startAcp([], {
      permission: () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }),
    });
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "b1", name: "Bash", input: { command: "touch one" } }] },
      { content: [{ type: "tool_use", id: "b2", name: "Bash", input: { command: "touch two" } }] },
      { content: [{ type: "text", text: "ok" }] },
      {
        content: [
          {
            type: "tool_use",
            id: "w1",
            name: "Write",
            input: { file_path: "new.txt", content: "new file\n" },
          },
        ],
      },
      { content: [{ type: "text", text: "written" }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    // Asked once: "always" allowed `touch` for the rest of the session and saved it for the project (`echo`, which
    // only reads, would not be asked at all).
    expect(run.asked.map((a) => a.toolCall.toolCallId)).toEqual(["b1"]);
    const local = JSON.parse(readFileSync(join(run.cwd, ".mitsu", "settings.local.json"), "utf8"));
    expect(local.permissions.allow).toEqual(["Bash(touch:*)"]);

    await run.connection.agent.request("session/set_mode", { sessionId, modeId: "acceptEdits" });
    await waitFor(() => updatesOf(run, sessionId, "current_mode_update").length > 0, 10_000, "mode update");
    expect(updatesOf(run, sessionId, "current_mode_update")[0]?.currentModeId).toBe("acceptEdits");
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(run.asked).toHaveLength(1);
    expect(readFileSync(join(run.cwd, "new.txt"), "utf8")).toBe("new file\n");
    await expect(
      run.connection.agent.request("session/set_mode", { sessionId, modeId: "yolo" }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("'always' goes through the harness's Asker: saved as the user's own rule, which the next start honours unasked", async () => {
    const run = await startAcp([], {
      permission: () => ({ outcome: { outcome: "selected", optionId: "allow_always" } }),
    });
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "b1", name: "Bash", input: { command: "touch one" } }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const first = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    await run.connection.agent.request("session/prompt", {
      sessionId: first.sessionId,
      prompt: [{ type: "text", text: "touch one" }],
    });
    expect(run.asked).toHaveLength(1);
    // The harness saved it and said so (what the terminal shows as "saved … to …"), once.
    const file = join(run.cwd, ".mitsu", "settings.local.json");
    await waitFor(() => run.stderr().includes(`saved Bash(touch:*) to ${file}`), 10_000, "the saved notice");
    expect(run.stderr().split("saved Bash(touch:*)").length - 1).toBe(1);
    const own = JSON.parse(readFileSync(join(run.home, ".mitsu", "own-rules.json"), "utf8"));
    expect(Object.values(own.files)).toEqual([["Bash(touch:*)"]]);
    run.child.kill("SIGTERM");
    await run.exited;

    // A new `mitsu acp` on the same folder: the rule is the user's own, so it counts without a trust question.
    const next = await startAcp(
      [
        { content: [{ type: "tool_use", id: "b2", name: "Bash", input: { command: "touch two" } }] },
        { content: [{ type: "text", text: "ok" }] },
      ],
      {},
      { reuse: { cwd: run.cwd, home: run.home, sim: run.sim } },
    );
    const second = await next.connection.agent.request("session/new", { cwd: next.cwd, mcpServers: [] });
    await next.connection.agent.request("session/prompt", {
      sessionId: second.sessionId,
      prompt: [{ type: "text", text: "touch two" }],
    });
    expect(next.asked).toEqual([]);
    expect(existsSync(join(next.cwd, "two"))).toBe(true);
  });

  it("an approved plan (ExitPlanMode) after set_mode plan switches the mode, and the editor is told", async () => {
    const run = await startAcp([], {
      permission: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    });
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "p1", name: "ExitPlanMode", input: { plan: "1. Nothing." } }] },
      { content: [{ type: "text", text: "ok" }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    await run.connection.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "plan" }],
    });
    expect(run.asked.map((a) => a.toolCall.toolCallId)).toEqual(["p1"]);
    await waitFor(() => updatesOf(run, sessionId, "current_mode_update").length >= 2, 10_000, "mode updates");
    expect(updatesOf(run, sessionId, "current_mode_update").map((u) => u.currentModeId)).toEqual([
      "plan",
      "default",
    ]);
  });

  it("/compact, /context and /cost answer in the panel without a prompt to the model", async () => {
    const run = await startAcp([
      { content: [{ type: "text", text: "First answer." }] },
      { content: [{ type: "text", text: "<summary>The user said hello.</summary>" }] },
    ]);
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const names = await offeredCommands(run, sessionId);
    expect(names).toEqual(expect.arrayContaining(["compact", "context", "cost"]));
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hello" }],
    });
    const requests = run.sim.requests.length;
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/cost" }],
    });
    expect(run.sim.requests.length).toBe(requests);
    expect(answerText(run, sessionId)).toContain("First answer.");
    const compacted = await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "/compact" }],
    });
    expect(compacted.stopReason).toBe("end_turn");
    expect(answerText(run, sessionId)).toContain("Compacted: ");
    expect(run.sim.requests.length).toBe(requests + 1);
  });

  it("the model is chosen from the session's config options", async () => {
    const run = await startAcp([{ content: [{ type: "text", text: "small model here" }] }]);
    const { sessionId, configOptions } = await run.connection.agent.request("session/new", {
      cwd: run.cwd,
      mcpServers: [],
    });
    const option = configOptions?.[0];
    const values =
      option && option.type === "select" ? option.options.map((o) => ("value" in o ? o.value : "")) : [];
    expect(values).toContain("haiku");
    const set = await run.connection.agent.request("session/set_config_option", {
      sessionId,
      configId: "model",
      value: "haiku",
    });
    expect(set.configOptions[0]?.currentValue).toBe("haiku");
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(String(run.sim.requests.at(-1)?.body.model)).toContain("haiku");
  });
});
