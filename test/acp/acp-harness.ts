import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientApp,
  type ClientCapabilities,
  type ClientConnection,
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { onTestFinished } from "vitest";
import { type ScriptEntry, type Simulator, startSimulator } from "../../src/simulator/index.js";
import { tempWorkspace } from "../cli/cli-harness.js";
import { MITSU_BIN } from "../security/run-bin.js";

export { MITSU_BIN };

/** What a test's client does when the agent calls it; absent handlers are not offered as capabilities. */
export interface ClientHandlers {
  permission?: (
    request: RequestPermissionRequest,
    /** Aborted when the agent withdraws the question (`$/cancel_request`). */
    signal: AbortSignal,
  ) => Promise<RequestPermissionResponse> | RequestPermissionResponse;
  /** Registers fs/terminal handlers on the client and says which capabilities to offer. */
  extend?: (app: ClientApp) => ClientCapabilities;
}

export interface AcpRun {
  sim: Simulator;
  cwd: string;
  home: string;
  child: ChildProcess;
  connection: ClientConnection;
  /** Every session/update received, in order. */
  updates: SessionNotification[];
  /** What the agent wrote to stderr. */
  stderr: () => string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  /** Every permission question asked. */
  asked: RequestPermissionRequest[];
}

/**
 * Starts the built `mitsu acp` in a temp copy of the demo workspace against a simulator serving `script`, and
 * connects an ACP client (the SDK's client side) to its stdin/stdout; it is initialized. The process and the
 * simulator are stopped when the test ends.
 */
export async function startAcp(
  script: ScriptEntry[],
  handlers: ClientHandlers = {},
  options: {
    args?: string[];
    env?: NodeJS.ProcessEnv;
    empty?: boolean;
    /** Another process on the same workspace, home and simulator (an earlier run's). */
    reuse?: { cwd: string; home: string; sim: Simulator };
  } = {},
): Promise<AcpRun> {
  let sim = options.reuse?.sim;
  if (sim) sim.enqueue(...script);
  else {
    const started = await startSimulator({ script });
    onTestFinished(() => started.close());
    sim = started;
  }
  const { cwd, home } = options.reuse ?? tempWorkspace(options.empty ? { empty: true } : {});
  const child = spawn(process.execPath, [MITSU_BIN, "acp", ...(options.args ?? [])], {
    cwd,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "sim-key",
      ANTHROPIC_BASE_URL: sim.url,
      ...options.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  const app = client({ name: "mitsu-test" }).onNotification("session/update", ({ params }) => {
    updates.push(params);
  });
  const capabilities = handlers.extend?.(app) ?? {};
  app.onRequest("session/request_permission", async ({ params, signal }) => {
    asked.push(params);
    return handlers.permission
      ? handlers.permission(params, signal)
      : { outcome: { outcome: "selected", optionId: "reject_once" } };
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  onTestFinished(() => connection.close());
  const init = await connection.agent.request("initialize", {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: capabilities,
  });
  if (init.protocolVersion !== PROTOCOL_VERSION) throw new Error(`protocol ${init.protocolVersion}`);
  return { sim, cwd, home, child, connection, updates, stderr: () => stderr, exited, asked };
}

/** The text of every session log under `home` (sub-agents' transcripts left out). */
export function sessionLogs(home: string): string[] {
  const root = join(home, ".mitsu", "projects");
  return readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".jsonl") && /sessions\/[^/]+\.jsonl$/.test(f))
    .map((f) => readFileSync(join(root, f), "utf8"));
}

/** The updates of one session, of one kind. */
export function updatesOf<K extends SessionNotification["update"]["sessionUpdate"]>(
  run: AcpRun,
  sessionId: string,
  kind: K,
): Extract<SessionNotification["update"], { sessionUpdate: K }>[] {
  return run.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
    .map((n) => n.update as Extract<SessionNotification["update"], { sessionUpdate: K }>);
}

/** The names of the commands a session offers: its first `available_commands_update`, waited for. */
export async function offeredCommands(run: AcpRun, sessionId: string): Promise<string[] | undefined> {
  await waitFor(() => updatesOf(run, sessionId, "available_commands_update").length > 0, 20_000, "commands");
  return updatesOf(run, sessionId, "available_commands_update")[0]?.availableCommands.map((c) => c.name);
}

/** The streamed answer text of a session. */
export function answerText(run: AcpRun, sessionId: string): string {
  return updatesOf(run, sessionId, "agent_message_chunk")
    .map((u) => (u.content.type === "text" ? u.content.text : ""))
    .join("");
}

/** Resolves once `condition` holds (polled on each turn of the event loop), or rejects after `ms`. */
export async function waitFor(condition: () => boolean, ms = 20_000, what = "a condition"): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
