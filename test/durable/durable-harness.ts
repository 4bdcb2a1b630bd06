import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import type { RestateServer } from "../../src/durable/index.js";

export const BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");

/** Waits until `check` holds (polling), or throws after `timeoutMs`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = "a condition",
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A `mitsu worker` child process (the built command). */
export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** kill -9, and wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>;
}

export async function startWorkerProcess(options: {
  port: number;
  workspaces: string;
  home: string;
  env: Record<string, string>;
  args?: string[];
}): Promise<WorkerProcess> {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "worker",
      "--port",
      String(options.port),
      "--host",
      "127.0.0.1",
      "--workspaces",
      options.workspaces,
      ...(options.args ?? []),
    ],
    {
      cwd: options.workspaces,
      env: { PATH: process.env.PATH, HOME: options.home, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  await until(() => output.includes("mitsu worker: serving") || gone, 20_000, "the worker to listen");
  if (gone) throw new Error(`The worker exited at start:\n${output}`);
  return {
    child,
    output: () => output,
    async kill() {
      if (!gone) child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (!gone) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Rows of the server's SQL introspection (`sys_invocation`, `sys_journal`, …). */
export async function query<T = Record<string, unknown>>(server: RestateServer, sql: string): Promise<T[]> {
  const response = await fetch(`${server.adminUrl}/query`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query: sql }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`query failed: ${text}`);
  return (JSON.parse(text) as { rows: T[] }).rows;
}
