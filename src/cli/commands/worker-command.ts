import type { PrintIo } from "../cli-io.js";
import { stripControls } from "../render/terminal-text.js";
import { restateSdkMissing } from "./restate-sdk-missing.js";
import type { WorkerCommandOptions } from "./worker-command-options.js";
import { registerOrShow } from "./worker-registration.js";

export type { WorkerCommandOptions } from "./worker-command-options.js";

/**
 * `mitsu worker`: serves the mitsu session object to a Restate server until interrupted (Ctrl-C, SIGTERM). Prints
 * its URL and how to register it; with `--register`, registers itself.
 */
export async function workerCommand(options: WorkerCommandOptions, io: PrintIo): Promise<number> {
  if (options.processes > 1) {
    const cluster = (await import("node:cluster")).default;
    if (cluster.isPrimary) {
      const { clusterPrimary } = await import("./worker-cluster.js");
      return clusterPrimary(options, io);
    }
  }
  let durable: typeof import("../../durable/index.js");
  try {
    durable = await import("../../durable/index.js");
  } catch (error) {
    const missing = restateSdkMissing(error);
    if (!missing) throw error;
    io.stderr.write(`mitsu worker ${missing}\n`);
    return 1;
  }
  const { join, resolve } = await import("node:path");
  const root = resolve(io.cwd, options.workspaces ?? ".");
  let workspace: ReturnType<typeof durable.sessionWorkspaces>;
  try {
    workspace = durable.sessionWorkspaces(root);
  } catch (error) {
    io.stderr.write(`mitsu worker: ${stripControls((error as Error).message)}\n`);
    return 1;
  }
  const setup = durable.codingAgentSetup({
    home: io.home,
    env: io.env,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.permissionMode !== undefined ? { permissionMode: options.permissionMode } : {}),
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
  });
  const agent = durable.createDurableAgent({
    setup: setup.setup,
    workspace,
    ...(options.askTimeoutMs !== undefined ? { askTimeoutMs: options.askTimeoutMs } : {}),
    ...(options.ingress !== undefined ? { ingressUrl: options.ingress } : {}),
    liveEvents: options.liveEvents,
    // On HTTP/2 an invocation is not replayed at each step: longer ones make fewer round trips (bench/durable).
    ...(options.protocol === "http2" ? { turnsPerInvocation: durable.HTTP2_TURNS_PER_INVOCATION } : {}),
    // Beside the sessions' checkouts, on the volume every worker sees (a session id never starts with a dot).
    stepMarks: durable.fileStepMarks(join(root, ".mitsu-steps")),
  });
  let endpoint: Awaited<ReturnType<typeof durable.serveWorker>>;
  try {
    endpoint = await durable.serveWorker({
      services: [agent],
      port: options.port,
      host: options.host,
      identityKeys: options.identityKeys,
      logLevel: options.verbose ? "info" : "warn",
      protocol: options.protocol,
      log: (line) => {
        // mitsu says it itself, where it matters (beyond loopback) and with what to do (below).
        if (!line.includes(UNSIGNED_REQUESTS)) io.stderr.write(`${stripControls(line)}\n`);
      },
    });
  } catch (error) {
    io.stderr.write(
      `mitsu worker: cannot listen on ${options.host}:${options.port}: ${(error as Error).message}\n`,
    );
    await setup.close();
    return 1;
  }
  // A worker runs tools (Bash, Edit) for whoever invokes it: reachable beyond this machine, it must accept only
  // the Restate server's signed requests.
  if (options.identityKeys.length === 0 && !isLoopbackHost(options.host)) {
    io.stderr.write(
      `mitsu worker: warning: listening on ${stripControls(options.host)} without --identity-key: anyone who can reach port ${options.port} can run this worker's tools. Pass the Restate server's public key (restate-server prints it; see Restate's "request identity") or listen on 127.0.0.1.\n`,
    );
  }
  const url = options.url ?? endpoint.url;
  const stop = new AbortController();
  const onTerm = () => stop.abort();
  process.once("SIGTERM", onTerm);
  io.signal?.addEventListener("abort", onTerm, { once: true });
  const stopped = async () => {
    if (!io.signal?.aborted)
      await new Promise<void>((done) => stop.signal.addEventListener("abort", () => done()));
    process.off("SIGTERM", onTerm);
    await endpoint.close();
    await setup.close();
  };
  if (options.processes > 1) {
    // A process of `--processes`: the primary prints, registers and restarts; this one only serves. Its IPC
    // channel to the primary would keep it alive after the endpoint closed.
    await stopped();
    process.disconnect?.();
    return 0;
  }
  io.stdout.write(
    `mitsu worker: serving ${durable.DEFAULT_SESSION_OBJECT} at ${url} (workspaces: ${root})\n`,
  );
  if (!(await registerOrShow(options, url, io))) {
    stop.abort();
    await stopped();
    return 1;
  }
  await stopped();
  io.stderr.write("mitsu worker: stopped\n");
  return 0;
}

/** The Restate SDK's warning when no identity key is given. */
const UNSIGNED_REQUESTS = "Accepting requests without validating request signatures";

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
