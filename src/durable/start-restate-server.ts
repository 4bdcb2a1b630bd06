import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A Restate server this process started (tests, benchmarks, a local try-out). */
export interface RestateServer {
  /** The ingress, where prompts are sent: `http://127.0.0.1:<port>`. */
  readonly ingressUrl: string;
  /** The admin API, where workers are registered. */
  readonly adminUrl: string;
  readonly baseDir: string;
  /** The server process's id (a benchmark reads its CPU time). */
  readonly pid: number | undefined;
  /** What the server printed, for a failing test's message. */
  output(): string;
  /** Stops the server (SIGTERM, then SIGKILL after 5 s) and removes its base directory unless it was given. */
  stop(): Promise<void>;
  /** kill -9 (a node lost), and waits for the exit; `stop` still removes the base directory. */
  kill(): Promise<void>;
}

export interface StartRestateServerOptions {
  /** Default: a new temporary directory, removed by `stop`. */
  baseDir?: string;
  /** Default: the binary of the `@restatedev/restate-server` npm package for this platform. */
  binary?: string;
  /** How long an idle invocation keeps its worker before it suspends; default Restate's (1 minute). */
  inactivityTimeout?: string;
  /** Partitions of a new cluster; default 4 (Restate's own default, 24, starts slower). */
  partitions?: number;
  /** Default 60 s. */
  startTimeoutMs?: number;
  /** More `RESTATE_*` configuration variables (e.g. `RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL`). */
  env?: Record<string, string>;
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The restate-server binary shipped by the npm package `@restatedev/restate-server` (its platform package). */
export function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  const platformPackage = `@restatedev/restate-server-${process.platform}-${process.arch === "x64" ? "x64" : process.arch}`;
  try {
    return require.resolve(`${platformPackage}/bin/restate-server`);
  } catch {
    throw new Error(
      `The Restate server binary was not found (${platformPackage}). Install it with: npm install --save-dev @restatedev/restate-server@1.7`,
    );
  }
}

/**
 * Starts a single-node Restate server on free loopback ports with its own base directory, and waits until
 * its ingress and admin API answer. Nothing is downloaded: the binary comes from the npm package.
 */
export async function startRestateServer(options: StartRestateServerOptions = {}): Promise<RestateServer> {
  const binary = options.binary ?? restateServerBinary();
  const ownDir = options.baseDir === undefined;
  const baseDir = options.baseDir ?? mkdtempSync(join(tmpdir(), "mitsu-restate-"));
  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: baseDir,
    RESTATE_BASE_DIR: baseDir,
    RESTATE_NODE_NAME: "mitsu",
    RESTATE_LISTEN_MODE: "tcp",
    RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
    RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}/`,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_ADMIN__QUERY_ENGINE__PGSQL_BIND_ADDRESS: `127.0.0.1:${await freePort()}`,
    RESTATE_DISABLE_TELEMETRY: "true",
    RESTATE_DEFAULT_NUM_PARTITIONS: String(options.partitions ?? 4),
    RESTATE_LOG_FILTER: "warn",
    RESTATE_LOG_DISABLE_ANSI_CODES: "true",
  };
  if (options.inactivityTimeout) env.RESTATE_WORKER__INVOKER__INACTIVITY_TIMEOUT = options.inactivityTimeout;
  Object.assign(env, options.env);
  const child: ChildProcess = spawn(binary, ["--no-logo", "--base-dir", baseDir], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-20_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on("exit", () => {
      exited = true;
      resolve();
    });
  });
  const server: RestateServer = {
    ingressUrl: `http://127.0.0.1:${ingress}`,
    adminUrl: `http://127.0.0.1:${admin}`,
    baseDir,
    pid: child.pid,
    output: () => output,
    async kill() {
      if (!exited) child.kill("SIGKILL");
      await exit;
    },
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exit;
        clearTimeout(timer);
      }
      if (ownDir) rmSync(baseDir, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  for (;;) {
    if (exited) {
      await server.stop();
      throw new Error(`The Restate server exited at start:\n${output}`);
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`The Restate server did not become ready in time:\n${output}`);
    }
    if (
      (await answers(`${server.adminUrl}/health`)) &&
      (await answers(`${server.ingressUrl}/restate/health`))
    )
      return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
