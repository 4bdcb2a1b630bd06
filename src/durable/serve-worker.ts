import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEndpointHandler, type LoggerTransport } from "@restatedev/restate-sdk";
import { ensurePromiseWithResolvers } from "./promise-with-resolvers.js";

/** A running worker endpoint. */
export interface WorkerEndpoint {
  /** The URL to register with the Restate server (`http://host:port`). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting requests and closes the open connections. */
  close(): Promise<void>;
}

export interface ServeWorkerOptions {
  /** What the endpoint serves: `createDurableAgent(...)`, and any other Restate service of the embedder's. */
  services: Parameters<typeof createEndpointHandler>[0]["services"];
  /** Default 9080; 0 picks a free port. */
  port?: number;
  /** Default `0.0.0.0` (the Restate server is usually on another machine). */
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
  const handler = createEndpointHandler({
    services: options.services,
    bidirectional: false,
    logger: lineLogger(options),
    ...(options.identityKeys?.length ? { identityKeys: options.identityKeys } : {}),
  });
  const server = createServer(handler);
  const host = options.host ?? "0.0.0.0";
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
        server.closeAllConnections();
      }),
  };
}
