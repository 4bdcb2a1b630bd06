import { createServer } from "node:http";
import { createServer as createHttp2Server, type Http2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { type createEndpointHandler, endpoint, type LoggerTransport } from "@restatedev/restate-sdk";
import { ensurePromiseWithResolvers } from "./promise-with-resolvers.js";

/** A running worker endpoint. */
export interface WorkerEndpoint {
  /** The URL to register with the Restate server (`http://host:port`). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting requests and closes the open connections. */
  close(): Promise<void>;
}

type ServiceDefinitionLike = Parameters<typeof createEndpointHandler>[0]["services"][number];

export interface ServeWorkerOptions {
  /**
   * What the endpoint serves: `createDurableAgent(...)` (the session object and its driver, a pair), and any other
   * Restate service of the embedder's.
   */
  services: ReadonlyArray<ServiceDefinitionLike | readonly ServiceDefinitionLike[]>;
  /** Default 9080; 0 picks a free port. */
  port?: number;
  /**
   * Default `127.0.0.1`, as `mitsu worker`: a worker runs tools for whoever reaches it. A Restate server on another
   * machine needs `0.0.0.0` (or an interface's address), and then `identityKeys`.
   */
  host?: string;
  /** The host name in `url`; default `localhost` when `host` is a wildcard address. */
  advertisedHost?: string;
  /**
   * Restate request-identity public keys (`publickeyv1_…`): with them, the endpoint answers only requests the
   * Restate server signed. Without them anyone who reaches the port can invoke the sessions.
   */
  identityKeys?: string[];
  /** The least severe SDK log line shown; default `warn`. */
  logLevel?: "debug" | "info" | "warn" | "error" | "silent";
  /** Where log lines go; default standard error. */
  log?: (line: string) => void;
  /**
   * `http1` (default): request-response mode — a session that waits holds nothing, and any number of processes
   * can share one URL; each journaled step ends the request and the next one replays the journal. `http2`:
   * one stream per invocation — fewer round trips per step, but a waiting session holds its stream until the
   * server's inactivity timeout (1 minute by default), and a load balancer must spread HTTP/2 streams. Register
   * with the same protocol (`registerWorker`'s `http2`).
   */
  protocol?: "http1" | "http2";
}

const LEVELS = ["trace", "debug", "info", "warn", "error"];

/** The SDK's log events as single lines: a terminal error (a refused prompt) by its message, not its stack. */
function lineLogger(options: ServeWorkerOptions): LoggerTransport {
  const min = options.logLevel === "silent" ? LEVELS.length : LEVELS.indexOf(options.logLevel ?? "warn");
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return (meta, message, ...rest) => {
    if (LEVELS.indexOf(meta.level) < min || meta.replaying) return;
    const where = meta.context ? ` ${meta.context.invocationTarget} ${meta.context.invocationId}` : "";
    const parts = [message, ...rest].map((part) =>
      part instanceof Error
        ? `${part.name}: ${part.message}`
        : typeof part === "string"
          ? part
          : String(part),
    );
    log(`[worker] ${meta.level}${where}: ${parts.join(" ")}`);
  };
}

/**
 * Serves Restate services over HTTP/1.1 (Restate's request-response mode): each invocation step is one request,
 * and a session that waits (for a person's answer, for a sub-agent) is suspended and holds no connection and
 * no worker. Any number of such processes can stand behind one URL (a load balancer, `node:cluster`); the
 * deployment is registered with `use_http_11` (see `registerWorker`).
 */
export async function serveWorker(options: ServeWorkerOptions): Promise<WorkerEndpoint> {
  ensurePromiseWithResolvers();
  const http2 = options.protocol === "http2";
  // One handler, for the one protocol served (the SDK's `createEndpointHandler` makes one for each, and each
  // logs its warnings: a worker without identity keys said so twice).
  const built = endpoint().setLogger(lineLogger(options));
  for (const service of options.services.flat() as ServiceDefinitionLike[]) built.bind(service);
  if (options.identityKeys?.length) built.withIdentityV1(...options.identityKeys);
  const server = http2
    ? createHttp2Server(built.http2Handler({ bidirectional: true }))
    : createServer(built.http1Handler({ bidirectional: false }));
  // An HTTP/2 server closes only when its sessions end: `close` ends them.
  const sessions = new Set<Http2Session>();
  server.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 9080, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = options.advertisedHost ?? (host === "0.0.0.0" || host === "::" ? "localhost" : host);
  return {
    url: `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
        for (const session of sessions) session.destroy();
      }),
  };
}
