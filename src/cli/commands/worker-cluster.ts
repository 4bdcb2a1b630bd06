import cluster, { type Worker } from "node:cluster";
import { basename } from "node:path";
import type { PrintIo } from "../cli-io.js";
import { stripControls } from "../render/terminal-text.js";
import type { WorkerCommandOptions } from "./worker-command-options.js";
import { registerOrShow } from "./worker-registration.js";

/**
 * `mitsu worker --processes N`: the primary of a `node:cluster` — N processes of this same command share the port
 * (connections handed out round-robin), so one registered URL spreads sessions over N processes. A process that
 * dies is replaced (its invocations are resumed by Restate on the others meanwhile). The primary registers the
 * URL once all are listening, and stops them on Ctrl-C or SIGTERM.
 */
export async function clusterPrimary(options: WorkerCommandOptions, io: PrintIo): Promise<number> {
  const script = process.argv[1] ?? "";
  if (!/^bin\.[cm]?js$/.test(basename(script))) {
    io.stderr.write("mitsu worker: --processes works only from the mitsu command\n");
    return 1;
  }
  cluster.setupPrimary({ exec: script, args: process.argv.slice(2) });
  let stopping = false;
  const workers = new Set<Worker>();
  const fork = () =>
    new Promise<void>((listening, failed) => {
      const worker = cluster.fork();
      workers.add(worker);
      worker.once("listening", () => listening());
      worker.once("exit", (code, signal) => {
        workers.delete(worker);
        failed(new Error(`a worker process exited at start (${signal ?? code})`));
        if (stopping) return;
        io.stderr.write(
          `mitsu worker: process ${worker.process.pid} ended (${signal ?? code}); starting another\n`,
        );
        fork().catch(() => undefined);
      });
    });
  try {
    await Promise.all(Array.from({ length: options.processes }, fork));
  } catch (error) {
    stopping = true;
    for (const worker of workers) worker.kill();
    io.stderr.write(`mitsu worker: ${stripControls((error as Error).message)}\n`);
    return 1;
  }
  const shown = options.host === "0.0.0.0" || options.host === "::" ? "localhost" : options.host;
  const url = options.url ?? `http://${shown}:${options.port}`;
  const { DEFAULT_SESSION_OBJECT } = await import("../../durable/index.js");
  io.stdout.write(
    `mitsu worker: serving ${DEFAULT_SESSION_OBJECT} at ${url} with ${options.processes} processes (${[...workers].map((w) => w.process.pid).join(", ")})\n`,
  );
  const stop = new AbortController();
  const onTerm = () => stop.abort();
  process.once("SIGTERM", onTerm);
  io.signal?.addEventListener("abort", onTerm, { once: true });
  let code = 0;
  if (!(await registerOrShow(options, url, io))) {
    code = 1;
    stop.abort();
  }
  if (!stop.signal.aborted && !io.signal?.aborted)
    await new Promise<void>((done) => stop.signal.addEventListener("abort", () => done()));
  process.off("SIGTERM", onTerm);
  stopping = true;
  await Promise.all(
    [...workers].map(
      (worker) =>
        new Promise<void>((done) => {
          worker.once("exit", () => done());
          worker.kill("SIGTERM");
        }),
    ),
  );
  io.stderr.write("mitsu worker: stopped\n");
  return code;
}
