import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { ClientApp, CreateTerminalRequest } from "@agentclientprotocol/sdk";
import { describe, expect, it, onTestFinished } from "vitest";
import { EDGE_SERVER, EVERYTHING_SERVER, freePort } from "../mcp/mcp-fixtures.js";
import { answerText, MITSU_BIN, offeredCommands, startAcp, updatesOf, waitFor } from "./acp-harness.js";

/** Resolves once something listens on the loopback port. */
async function waitForPort(port: number): Promise<void> {
  const listening = () =>
    new Promise<boolean>((done) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.end();
        done(true);
      });
      socket.on("error", () => done(false));
    });
  const until = Date.now() + 20_000;
  while (!(await listening())) {
    if (Date.now() > until) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const allow = () => ({ outcome: { outcome: "selected" as const, optionId: "allow_once" } });

/** An editor's terminals, run as child processes of the test; `calls` records kill and release. */
function fakeTerminal() {
  const created: CreateTerminalRequest[] = [];
  const calls: string[] = [];
  const terminals = new Map<string, { output: string; exit: Promise<number | null>; kill: () => void }>();
  const extend = (app: ClientApp) => {
    app
      .onRequest("terminal/create", ({ params }) => {
        created.push(params);
        // The editor's environment holds a key of its own: the command must not see it.
        const child = spawn(params.command, params.args ?? [], {
          cwd: params.cwd ?? undefined,
          env: { ...process.env, ANTHROPIC_API_KEY: "editor-secret" },
        });
        const id = `term-${created.length}`;
        const entry = {
          output: "",
          exit: new Promise<number | null>((r) => child.once("close", r)),
          kill: () => child.kill("SIGKILL"),
        };
        child.stdout.on("data", (d: Buffer) => {
          entry.output += d.toString();
        });
        terminals.set(id, entry);
        return { terminalId: id };
      })
      .onRequest("terminal/wait_for_exit", async ({ params }) => ({
        exitCode: (await terminals.get(params.terminalId)?.exit) ?? null,
      }))
      .onRequest("terminal/output", ({ params }) => ({
        output: terminals.get(params.terminalId)?.output ?? "",
        truncated: false,
      }))
      .onRequest("terminal/release", ({ params }) => {
        calls.push(`release ${params.terminalId}`);
        terminals.get(params.terminalId)?.kill();
        return {};
      })
      .onRequest("terminal/kill", ({ params }) => {
        calls.push(`kill ${params.terminalId}`);
        terminals.get(params.terminalId)?.kill();
        return {};
      });
    return { terminal: true };
  };
  return { created, calls, extend };
}

describe.skipIf(!existsSync(MITSU_BIN))("mitsu acp: the client's capabilities", () => {
  it("with fs offered, Read sees the editor's unsaved buffer and Edit lands in it; paths outside are never asked for", async () => {
    const buffers = new Map<string, string>();
    const reads: string[] = [];
    const writes: string[] = [];
    const run = await startAcp([], {
      permission: allow,
      extend: (app) => {
        app.onRequest("fs/read_text_file", ({ params }) => {
          reads.push(params.path);
          return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
        });
        app.onRequest("fs/write_text_file", ({ params }) => {
          writes.push(params.path);
          buffers.set(params.path, params.content);
          return {};
        });
        return { fs: { readTextFile: true, writeTextFile: true } };
      },
    });
    const file = join(run.cwd, "README.md");
    buffers.set(file, "# unsaved title\n\nonly in the editor\n");
    run.sim.enqueue(
      {
        content: [
          { type: "tool_use", id: "t1", name: "Read", input: { file_path: file } },
          { type: "tool_use", id: "t2", name: "Read", input: { file_path: "/etc/hostname" } },
        ],
      },
      {
        content: [
          {
            type: "tool_use",
            id: "t3",
            name: "Edit",
            input: { file_path: file, old_string: "only in the editor", new_string: "edited in the editor" },
          },
        ],
      },
      { content: [{ type: "text", text: "Done." }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const response = await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Edit the README" }],
    });
    expect(response.stopReason).toBe("end_turn");
    // The model saw the buffer, not the disk.
    const second = JSON.stringify(run.sim.requests[1]?.body);
    expect(second).toContain("only in the editor");
    expect(second).toContain("outside the workspace");
    // The edit went to the buffer; the disk is as it was (the test's editor does not save).
    expect(buffers.get(file)).toBe("# unsaved title\n\nedited in the editor\n");
    expect(readFileSync(file, "utf8")).not.toContain("edited");
    expect(writes).toEqual([file]);
    // Nothing outside the workspace was asked of the editor.
    expect(reads.every((path) => path.startsWith(run.cwd))).toBe(true);
    expect(reads).not.toContain("/etc/hostname");
  });

  it("with terminal offered, Bash runs in the editor's terminal, shown under its call", async () => {
    const terminal = fakeTerminal();
    const { created } = terminal;
    const run = await startAcp([], { permission: allow, extend: terminal.extend });
    run.sim.enqueue(
      {
        content: [
          {
            type: "tool_use",
            id: "sh",
            name: "Bash",
            input: { command: "echo from-the-editor key=$ANTHROPIC_API_KEY." },
          },
        ],
      },
      { content: [{ type: "text", text: "It printed." }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ command: "env", cwd: run.cwd });
    expect(created[0]?.args?.slice(-3)).toEqual([
      "bash",
      "-c",
      "echo from-the-editor key=$ANTHROPIC_API_KEY.",
    ]);
    expect(created[0]?.args).toEqual(expect.arrayContaining(["-u", "ANTHROPIC_API_KEY"]));
    const shown = updatesOf(run, sessionId, "tool_call_update").filter((u) => u.toolCallId === "sh");
    expect(
      shown.some((u) => u.content?.some((c) => c.type === "terminal" && c.terminalId === "term-1")),
    ).toBe(true);
    expect(shown.at(-1)?.status).toBe("completed");
    const sent = JSON.stringify(run.sim.requests[1]?.body);
    expect(sent).toContain("from-the-editor key=.");
    expect(sent).not.toContain("editor-secret");
    expect(answerText(run, sessionId)).toBe("It printed.");
  });

  it("a cancel while Bash runs in the editor's terminal kills and releases that terminal", async () => {
    const terminal = fakeTerminal();
    const run = await startAcp(
      [],
      { extend: terminal.extend },
      { args: ["--permission-mode", "bypassPermissions"] },
    );
    run.sim.enqueue({
      content: [{ type: "tool_use", id: "slow", name: "Bash", input: { command: "sleep 30" } }],
    });
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const prompt = run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    await waitFor(() => terminal.created.length === 1, 20_000, "the terminal");
    await run.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    // Killed and released (the tool's end may follow the turn's: the loop answers an interrupted call at once, so
    // on a busy machine the kill can land just after the prompt's answer).
    await waitFor(() => terminal.calls.includes("kill term-1"), 10_000, "the kill");
    await waitFor(() => terminal.calls.includes("release term-1"), 10_000, "the release");
    expect(terminal.calls.indexOf("kill term-1")).toBeLessThan(terminal.calls.indexOf("release term-1"));
  });

  it("a cancel mid-tool ends the turn with stopReason cancelled, and the next prompt goes on from a valid transcript", async () => {
    const run = await startAcp([], {}, { args: ["--permission-mode", "bypassPermissions"] });
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "long", name: "Bash", input: { command: "sleep 30" } }] },
      { content: [{ type: "text", text: "Next answer." }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const prompt = run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "wait" }],
    });
    await waitFor(
      () => updatesOf(run, sessionId, "tool_call").some((u) => u.toolCallId === "long"),
      20_000,
      "the Bash call",
    );
    // A second prompt while one runs is refused, and does not disturb it.
    await expect(
      run.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "again" }],
      }),
    ).rejects.toMatchObject({ code: -32600 });
    const started = Date.now();
    await run.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(Date.now() - started).toBeLessThan(15_000);
    const end = updatesOf(run, sessionId, "tool_call_update")
      .filter((u) => u.toolCallId === "long")
      .at(-1);
    expect(end?.status).toBe("failed");
    // The simulator checks every request's transcript as the real API does: the call is answered.
    const next = await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go on" }],
    });
    expect(next.stopReason).toBe("end_turn");
    expect(run.sim.requests.at(-1)?.status).toBe(200);
    expect(JSON.stringify(run.sim.requests.at(-1)?.body)).toContain("long");
  });

  it("a cancel while a permission question is open: the question is withdrawn, the call denied, the turn cancelled", async () => {
    let withdrawn = false;
    const run = await startAcp([], {
      // The editor's user never answers; the client answers "cancelled" once the question is withdrawn.
      permission: (_request, signal) =>
        new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            withdrawn = true;
            resolve({ outcome: { outcome: "cancelled" } });
          });
        }),
    });
    run.sim.enqueue({
      content: [
        { type: "tool_use", id: "w", name: "Write", input: { file_path: "never.txt", content: "no" } },
      ],
    });
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    const prompt = run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write it" }],
    });
    await waitFor(() => run.asked.length === 1, 20_000, "the question");
    await run.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
    expect(existsSync(join(run.cwd, "never.txt"))).toBe(false);
    await waitFor(() => withdrawn, 10_000, "the question to be withdrawn");
  });

  it("TodoWrite is the plan; slash commands, skills and the client's MCP server's prompts are offered", async () => {
    const run = await startAcp([]);
    run.sim.enqueue(
      {
        content: [
          {
            type: "tool_use",
            id: "todo",
            name: "TodoWrite",
            input: {
              todos: [
                { content: "Read the code", status: "completed", activeForm: "Reading the code" },
                { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
              ],
            },
          },
          { type: "tool_use", id: "mcp", name: "mcp__edge__echo", input: { text: "hello edge" } },
        ],
      },
      { content: [{ type: "text", text: "Planned." }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", {
      cwd: run.cwd,
      mcpServers: [{ name: "edge", command: process.execPath, args: [EDGE_SERVER], env: [] }],
    });
    const names = await offeredCommands(run, sessionId);
    expect(names).toEqual(expect.arrayContaining(["commit", "mcp__edge__greet"]));
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "plan" }],
    });
    expect(updatesOf(run, sessionId, "plan").at(-1)?.entries).toEqual([
      { content: "Read the code", priority: "medium", status: "completed" },
      { content: "Fix the bug", priority: "medium", status: "in_progress" },
    ]);
    // The client's MCP server ran the call (allowed here: the test's client rejects, so it was asked).
    expect(run.asked.map((a) => a.toolCall.toolCallId)).toEqual(["mcp"]);
    expect(updatesOf(run, sessionId, "tool_call").find((c) => c.toolCallId === "todo")?.kind).toBe("think");
  });

  it("a client's MCP server over http joins the session: its tools run, its prompts are commands", async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [EVERYTHING_SERVER, "streamableHttp"], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: "ignore",
    });
    onTestFinished(() => {
      server.kill("SIGKILL");
    });
    await waitForPort(port);
    const run = await startAcp([], { permission: allow });
    run.sim.enqueue(
      { content: [{ type: "tool_use", id: "e", name: "mcp__every__echo", input: { message: "over http" } }] },
      { content: [{ type: "text", text: "echoed" }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", {
      cwd: run.cwd,
      mcpServers: [{ type: "http", name: "every", url: `http://127.0.0.1:${port}/mcp`, headers: [] }],
    });
    const names = await offeredCommands(run, sessionId);
    expect(names).toContain("mcp__every__simple-prompt");
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    expect(JSON.stringify(run.sim.requests.at(-1)?.body)).toContain("Echo: over http");
  });

  it("a sub-agent's tool calls appear as tool calls of their own, under the Task call", async () => {
    const run = await startAcp([]);
    run.sim.enqueue(
      {
        content: [
          {
            type: "tool_use",
            id: "task",
            name: "Task",
            input: { description: "Look around", prompt: "Read the README", subagent_type: "Explore" },
          },
        ],
      },
      { content: [{ type: "tool_use", id: "sub_read", name: "Read", input: { file_path: "README.md" } }] },
      { content: [{ type: "text", text: "It is a demo." }] },
      { content: [{ type: "text", text: "The sub-agent says it is a demo." }] },
    );
    const { sessionId } = await run.connection.agent.request("session/new", { cwd: run.cwd, mcpServers: [] });
    await run.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "explore" }],
    });
    const calls = updatesOf(run, sessionId, "tool_call");
    const nested = calls.find((c) => c.toolCallId === "task/sub_read");
    expect(nested).toMatchObject({ kind: "read", _meta: { mitsu: { parentToolCallId: "task" } } });
    expect(calls.find((c) => c.toolCallId === "task")?.kind).toBe("think");
    // The sub-agent's words show under the Task call while it runs.
    const taskUpdates = updatesOf(run, sessionId, "tool_call_update").filter((u) => u.toolCallId === "task");
    expect(
      taskUpdates.some(
        (u) =>
          u.status === "in_progress" &&
          u.content?.some(
            (c) => c.type === "content" && c.content.type === "text" && c.content.text === "It is a demo.",
          ),
      ),
    ).toBe(true);
    // Only the main agent's answer streams as the answer.
    expect(answerText(run, sessionId)).toBe("The sub-agent says it is a demo.");
  });
});
