import { freePort, type RestateServer, startRestateServer } from "./start-restate-server.js";

export interface StartRestateClusterOptions {
  /** Nodes; default 3. */
  nodes?: number;
  /** Copies of each log record and partition (Restate's default replication); default 2. */
  replication?: number;
  partitions?: number;
  /** More `RESTATE_*` variables, for every node. */
  env?: Record<string, string>;
}

/**
 * A Restate cluster on this machine: `nodes` restate-server processes (each its own base directory and ports),
 * the metadata replicated among them (Raft) and the log replicated (`replication` copies), provisioned by the
 * first. For tests of a node's loss: every node has an ingress and an admin API.
 */
export async function startRestateCluster(
  options: StartRestateClusterOptions = {},
): Promise<RestateServer[]> {
  const count = options.nodes ?? 3;
  const fabric: number[] = [];
  for (let i = 0; i < count; i++) fabric.push(await freePort());
  const metadata = JSON.stringify(fabric.map((port) => `http://127.0.0.1:${port}/`));
  const started = await Promise.allSettled(
    fabric.map((port, i) =>
      startRestateServer({
        ...(options.partitions !== undefined ? { partitions: options.partitions } : {}),
        env: {
          RESTATE_CLUSTER_NAME: "mitsu-cluster",
          RESTATE_NODE_NAME: `mitsu-${i + 1}`,
          RESTATE_BIND_ADDRESS: `127.0.0.1:${port}`,
          RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${port}/`,
          RESTATE_AUTO_PROVISION: i === 0 ? "true" : "false",
          RESTATE_METADATA_CLIENT__ADDRESSES: metadata,
          RESTATE_DEFAULT_REPLICATION: String(options.replication ?? 2),
          RESTATE_BIFROST__DEFAULT_PROVIDER: "replicated",
          ...options.env,
        },
      }),
    ),
  );
  const nodes = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.find((result) => result.status === "rejected");
  if (failed) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  return nodes;
}
