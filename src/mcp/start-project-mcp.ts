import { homedir } from "node:os";
import { resolve } from "node:path";
import {
  type ConnectMcpServersOptions,
  connectMcpServers,
  type McpServerStatus,
  type McpServers,
} from "./connect-mcp-servers.js";
import { compareNames, loadMcpConfig, type McpConfigProblem } from "./load-mcp-config.js";
import type { McpServerEntry } from "./mcp-server-config.js";
import {
  approvalOf,
  mcpServerFingerprint,
  readProjectApprovals,
  recordApproval,
} from "./project-approvals.js";

/**
 * The user's answer about one project server: `approve` and `deny` are remembered in `~/.mitsu/mcp-approvals.json`;
 * `skip` (no answer, e.g. the input ended) leaves it unstarted this time and asks again next time.
 */
export type McpApprovalAnswer = "approve" | "deny" | "skip";

export interface StartProjectMcpOptions extends Omit<ConnectMcpServersOptions, "cwd"> {
  cwd: string;
  /** `--mcp-config` values (files or inline JSON). */
  configFiles?: readonly string[];
  /** `--strict-mcp-config`. */
  strict?: boolean;
  /** Servers of enabled plugins: started like the user's (installing the plugin approved them). */
  extraServers?: readonly McpServerEntry[];
  /**
   * Whether the user trusts the project folder (workspace trust). Default true. Untrusted, the project's
   * `.mcp.json` servers are neither asked about nor started (a repository grants itself nothing); they are
   * `skipped` with reason `untrusted`.
   */
  projectTrusted?: boolean;
  /**
   * The variables of `env` set by the project's own settings (`LoadedSettings.projectEnvKeys`): an approval's
   * fingerprint covers their values even when they are named like credentials (a pull can change them).
   */
  repositoryEnv?: readonly string[];
  /**
   * Asks the user about a project server nobody has decided on yet (interactive mode). Absent (print mode), such a
   * server is skipped and listed in `skipped`.
   */
  approve?: (entry: McpServerEntry) => Promise<McpApprovalAnswer>;
}

/** A configured server that was not started, and why. */
export interface SkippedMcpServer {
  entry: McpServerEntry;
  /** `pending`: a project server nobody approved yet; `denied`: the user said no; `untrusted`: the folder is not trusted. */
  reason: "pending" | "denied" | "untrusted";
}

export interface ProjectMcp {
  servers: McpServers;
  skipped: SkippedMcpServer[];
  /** Configuration files or entries that could not be used. */
  problems: McpConfigProblem[];
  /** Every configured server: those started (as `servers.status` says) and those skipped. */
  status(): Array<
    McpServerStatus | (Omit<McpServerStatus, "state"> & { state: "not-approved" | "denied" | "untrusted" })
  >;
}

/**
 * The MCP servers of a project, as the `mitsu` command starts them: the user's, the project's `.mcp.json` and
 * `--mcp-config` ones (see `loadMcpConfig`). User and command-line servers are trusted. A project server starts
 * only when approved (see `readProjectApprovals`): one nobody decided on is asked about through `approve`, one
 * at a time, and the answer is remembered; without `approve` it is skipped. The rest connect all at once.
 */
export async function startProjectMcp(options: StartProjectMcpOptions): Promise<ProjectMcp> {
  const cwd = resolve(options.cwd);
  const home = options.home ?? homedir();
  const loaded = await loadMcpConfig({
    cwd,
    home,
    ...(options.configFiles ? { configFiles: options.configFiles } : {}),
    ...(options.strict ? { strict: true } : {}),
    ...(options.extraServers ? { extraServers: options.extraServers } : {}),
  });
  const warn = options.onWarning ?? (() => {});
  for (const problem of loaded.problems) warn(problem.message);

  const started: McpServerEntry[] = [];
  const skipped: SkippedMcpServer[] = [];
  const project = loaded.servers.filter((s) => s.scope === "project");
  const approvals = project.length > 0 ? await readProjectApprovals({ cwd, home }) : undefined;
  const env = options.env ?? process.env;
  let unapproved = false;
  for (const entry of loaded.servers) {
    if (entry.scope !== "project") {
      started.push(entry);
      continue;
    }
    if (options.projectTrusted === false) {
      skipped.push({ entry, reason: "untrusted" });
      continue;
    }
    // Of the command line as it would run: a change to what a `${VAR}` expands to is a change.
    const fingerprint = mcpServerFingerprint(entry.config, env, options.repositoryEnv);
    let state = approvalOf(entry.name, approvals!, fingerprint);
    if (state === "changed") {
      warn(
        `MCP server ${JSON.stringify(entry.name)} in ${entry.source} changed since you approved it; it starts only once approved again`,
      );
    }
    if ((state === "pending" || state === "changed") && options.approve) {
      const answer = await options.approve(entry);
      if (answer !== "skip") {
        await recordApproval(cwd, entry.name, answer, fingerprint, { home }).catch((error: Error) =>
          warn(error.message),
        );
        state = answer === "approve" ? "approved" : "denied";
      }
    }
    if (state === "approved") started.push(entry);
    else skipped.push({ entry, reason: state === "changed" ? "pending" : state });
    if (state === "pending" || state === "changed") unapproved = true;
  }
  // Approvals a project file carries are named only when a server waits for the user's own.
  if (unapproved) for (const message of approvals?.ignored ?? []) warn(message);

  const servers = await connectMcpServers(started, { ...options, cwd, home });
  return {
    servers,
    skipped,
    problems: loaded.problems,
    status() {
      const notStarted = skipped.map(({ entry, reason }) => ({
        name: entry.name,
        scope: entry.scope,
        transport: entry.config.type,
        state: reason === "pending" ? ("not-approved" as const) : reason,
        tools: 0,
        prompts: 0,
        resources: false,
        durationMs: 0,
      }));
      return [...servers.status, ...notStarted].sort((a, b) => compareNames(a.name, b.name));
    },
  };
}
