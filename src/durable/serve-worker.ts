import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createEndpointHandler } from "@restatedev/restate-sdk";
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
}

/**
 * Serves Restate services over HTTP/1.1 (Restate's request-response mode): each invocation step is one request,
 * and a session that waits (for a person's answer, for a sub-agent) is suspended and holds no connection and
 * no worker. Any number of such processes can stand behind one URL (a load balancer, `node:cluster`); the
 * deployment is registered with `use_http_11` (see `registerWorker`).
 */
export async function serveWorker(options: ServeWorkerOptions): Promise<WorkerEndpoint> {
  ensurePromiseWithResolvers();
  const handler = createEndpointHandler({ services: options.services, bidirectional: false });
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
