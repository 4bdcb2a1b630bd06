import { type ChildProcess, spawn } from "node:child_process";
import { onTestFinished } from "vitest";
import { type ScriptEntry, type Simulator, startSimulator } from "../../src/simulator/index.js";
import { tempWorkspace } from "../cli/cli-harness.js";
import { MITSU_BIN } from "../security/run-bin.js";

/** One JSON-RPC message as it came off the agent's stdout (or the text of a line that was not JSON). */
// biome-ignore lint/suspicious/noExplicitAny: messages are checked by the tests field by field.
export type Message = Record<string, any>;

/**
 * A client written from the protocol's documentation alone: newline-delimited JSON-RPC 2.0 over the agent's
 * stdin and stdout, no SDK. `request` sends and waits for the response of that id; the agent's own requests
 * (session/request_permission, fs/…) are answered by `onRequest`; every message received is kept in order.
 */
export interface RawClient {
  sim: Simulator;
  cwd: string;
  home: string;
  child: ChildProcess;
  received: Message[];
  /** Lines of stdout that were not JSON (there must be none: stdout is the protocol's). */
  garbage: string[];
  send(line: string): void;
  request(method: string, params?: unknown): Promise<Message>;
  notify(method: string, params?: unknown): void;
  /** Resolves with the first received message that matches, waiting for it. */
  next(match: (message: Message) => boolean, ms?: number): Promise<Message>;
  stderr(): string;
  exited: Promise<number | null>;
}

export async function startRawClient(
  script: ScriptEntry[],
  onRequest: (method: string, params: Message) => unknown = () => ({}),
  options: { args?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<RawClient> {
  const sim = await startSimulator({ script });
  onTestFinished(() => sim.close());
  const { cwd, home } = tempWorkspace();
  const child = spawn(process.execPath, [MITSU_BIN, "acp", ...(options.args ?? [])], {
    cwd,
    env: options.env ?? {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "sim-key",
      ANTHROPIC_BASE_URL: sim.url,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const received: Message[] = [];
  const garbage: string[] = [];
  const waiters: Array<{ match: (m: Message) => boolean; resolve: (m: Message) => void }> = [];
  const write = (line: string) => {
    if (child.stdin?.writable) child.stdin.write(`${line}\n`);
  };
  let pending = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    for (let nl = pending.indexOf("\n"); nl !== -1; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() === "") continue;
      let message: Message;
      try {
        message = JSON.parse(line) as Message;
      } catch {
        garbage.push(line);
        continue;
      }
      received.push(message);
      // The agent's own request: answered at once.
      if (typeof message.method === "string" && message.id !== undefined) {
        Promise.resolve(onRequest(message.method, message.params ?? {})).then(
          (result) => write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result })),
          (error: Error) =>
            write(
              JSON.stringify({
                jsonrpc: "2.0",
                id: message.id,
                error: { code: -32603, message: error.message },
              }),
            ),
        );
      }
      for (const waiter of [...waiters]) {
        if (waiter.match(message)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  });
  let nextId = 1;
  const next = (match: (m: Message) => boolean, ms = 30_000) => {
    const found = received.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<Message>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no matching message in ${ms} ms; stderr: ${stderr}`)),
        ms,
      );
      waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  };
  return {
    sim,
    cwd,
    home,
    child,
    received,
    garbage,
    send: write,
    request(method, params) {
      const id = nextId++;
      write(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) }));
      return next((m) => m.id === id && m.method === undefined);
    },
    notify(method, params) {
      write(JSON.stringify({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }));
    },
    next,
    stderr: () => stderr,
    exited,
  };
}
