import type { PermissionMode } from "../../permissions/permission-mode.js";

/** What `mitsu worker` was given (see `workerCommand`; `clusterPrimary` hands it to each worker process). */
export interface WorkerCommandOptions {
  port: number;
  host: string;
  /** The folder holding one checkout per session (default: the current folder). */
  workspaces?: string;
  /** Register with this admin URL once listening. */
  register?: string;
  /** The Restate ingress: a turn reads the session's earlier messages from memory or through it, not the journal. */
  ingress?: string;
  /** The URL the Restate server reaches this worker at (default `http://<host>:<port>`). */
  url?: string;
  model?: string;
  permissionMode?: PermissionMode;
  allowedTools: string[];
  disallowedTools: string[];
  maxTurns?: number;
  identityKeys: string[];
  askTimeoutMs?: number;
  verbose: boolean;
  /** Worker processes sharing the port (`node:cluster`); default 1: this process serves. */
  processes: number;
  /** See `ServeWorkerOptions.protocol`. */
  protocol: "http1" | "http2";
  /** See `DurableAgentOptions.liveEvents`. */
  liveEvents: boolean;
}
