import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { alive, EDGE_SERVER, tempDir, waitFor } from "../mcp/mcp-fixtures.js";

/** The built command (npm test builds first). */
const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/**
 * `mitsu -p` whose model calls a slow MCP tool of a server that has started a grandchild; resolves once the call
 * is running, with the pids of mitsu, the server and the grandchild.
 */
async function mitsuInAToolCall() {
  sim = await startSimulator({
    script: [
      { content: [{ type: "tool_use", name: "mcp__edge__slow", input: { ms: 60_000 } }] },
      { content: [{ type: "text", text: "Stopped." }] },
    ],
  });
  const dir = tempDir();
  const pidFile = join(dir, "grandchild.pid");
  const events = join(dir, "events.jsonl");
  const config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        edge: { command: process.execPath, args: [EDGE_SERVER, "--grandchild", pidFile, "--events", events] },
      },
    }),
  );
  const child = spawn(
    process.execPath,
    [BIN, "-p", "--mcp-config", config, "--allowedTools", "mcp__edge", "--no-session-log", "go"],
    {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: sim.url },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on("exit", (code, signal) => done({ code, signal })),
  );
  await waitFor(
    () => existsSync(events) && readFileSync(events, "utf8").includes('"call":"slow"'),
    15_000,
    "the tool call",
  );
  const grandchild = Number(readFileSync(pidFile, "utf8"));
  const server = Number(readFileSync(`/proc/${grandchild}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
  return { child, exited, grandchild, server, stderr: () => stderr };
}

describe("MCP server processes when mitsu stops (no orphans)", () => {
  it("SIGTERM: mitsu stops its servers' process groups, then dies of the signal", async () => {
    const run = await mitsuInAToolCall();
    expect(alive(run.server) && alive(run.grandchild)).toBe(true);
    run.child.kill("SIGTERM");
    expect(await run.exited).toEqual({ code: null, signal: "SIGTERM" });
    await waitFor(
      () => !alive(run.server) && !alive(run.grandchild),
      5000,
      "the server and its grandchild to stop",
    );
  });

  it("kill -9: nothing in mitsu runs, so its watchdog stops the servers' process groups", async () => {
    const run = await mitsuInAToolCall();
    run.child.kill("SIGKILL");
    expect(await run.exited).toEqual({ code: null, signal: "SIGKILL" });
    await waitFor(
      () => !alive(run.server) && !alive(run.grandchild),
      5000,
      "the server and its grandchild to stop",
    );
  });

  it("Ctrl-C (SIGINT): the run stops, the servers are closed, exit code 130", async () => {
    const run = await mitsuInAToolCall();
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 130, signal: null });
    await waitFor(
      () => !alive(run.server) && !alive(run.grandchild),
      5000,
      "the server and its grandchild to stop",
    );
  });
});
