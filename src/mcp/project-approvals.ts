import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { canonicalJson } from "../context/canonical-json.js";
import { resolveRealPath } from "../fs/real-path.js";
import { writeConfigFile } from "../fs/write-config-file.js";
import { expandServerConfig } from "./expand-server-config.js";
import { McpConfigError, type McpServerConfig } from "./mcp-server-config.js";
import { isObject } from "./parse-mcp-config.js";

/** What the user decided about a project's `.mcp.json` servers. */
export interface ProjectApprovals {
  enabled: string[];
  disabled: string[];
  /** `enableAllProjectMcpServers` in `~/.mitsu/settings.json`: every server of every project's `.mcp.json` may start. */
  enableAll: boolean;
  /** For each approved server, the fingerprint of its configuration as approved (see `mcpServerFingerprint`). */
  fingerprints: Record<string, string>;
  /** Why some settings were not honoured (approvals a file inside the project carries), for a warning. */
  ignored: string[];
}

/** `changed`: approved once, but its configuration is not the one approved (a pull changed `.mcp.json` or `env`). */
export type ApprovalState = "approved" | "denied" | "pending" | "changed";

/** A variable whose value is a credential: rotating it must not ask again, so the fingerprint keeps its name. */
const CREDENTIAL = /TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL|AUTH/i;

/**
 * The fingerprint an approval is kept under: sha256 of the server's configuration as written in `.mcp.json` and,
 * given `env`, as it would run — command, args, cwd, env, url and headers after `${VAR}` expansion — so that a pull
 * changing only what a variable expands to (a project's settings `env`) is asked about again. Credentials
 * (variables named like `*_TOKEN`, `*_API_KEY`, `*SECRET*`, …) are left unexpanded: a rotated token does not re-ask.
 * Variables in `repositoryEnv` (set by the project's own settings: a pull can change them) are always expanded.
 * Re-serialised with sorted keys.
 */
export function mcpServerFingerprint(
  config: unknown,
  env?: Record<string, string | undefined>,
  repositoryEnv: readonly string[] = [],
): string {
  let expanded: McpServerConfig | undefined;
  if (env !== undefined && isObject(config) && typeof config.type === "string") {
    const visible = new Proxy(env, {
      get: (target, name) =>
        typeof name === "string" && CREDENTIAL.test(name) && !repositoryEnv.includes(name)
          ? `\${${name}}`
          : target[name as string],
    });
    try {
      expanded = expandServerConfig("", config as unknown as McpServerConfig, visible);
    } catch {
      // A missing variable: the server cannot start anyway; the written form is what the user approves.
    }
  }
  const what = expanded === undefined ? config : { config, expanded };
  return createHash("sha256").update(canonicalJson(what)).digest("hex");
}

/** Where the user's answers about project servers are kept: `~/.mitsu/mcp-approvals.json`, never in a project. */
export function approvalsFile(home: string = homedir()): string {
  return join(resolve(home), ".mitsu", "mcp-approvals.json");
}

/**
 * Where approvals used to be written (Claude Code's keys in the project's `.mitsu/settings.local.json`). A
 * repository can ship that file (in a folder that is not a git repository nothing tells it from the user's), so
 * its approvals are no longer read; its denials still are (they only restrict).
 */
export function localSettingsFile(cwd: string): string {
  return join(resolve(cwd), ".mitsu", "settings.local.json");
}

interface StoredDecision {
  decision: "approve" | "deny";
  fingerprint?: string;
  at: string;
}

/**
 * Reads the decisions about a project's servers: the user's answers for this folder (by its real path) from
 * `~/.mitsu/mcp-approvals.json`, and `enableAllProjectMcpServers` from `~/.mitsu/settings.json`. Nothing inside the
 * project approves anything (a repository grants itself nothing, git repository or not): approval keys in its
 * `.mitsu/` or `.claude/` settings are ignored and named in `ignored`; their `disabledMcpjsonServers` still apply.
 */
export async function readProjectApprovals(options: {
  cwd: string;
  home?: string;
}): Promise<ProjectApprovals> {
  const cwd = resolve(options.cwd);
  const home = resolve(options.home ?? homedir());
  const result: ProjectApprovals = {
    enabled: [],
    disabled: [],
    enableAll: false,
    fingerprints: Object.create(null),
    ignored: [],
  };
  const user = await readJson(join(home, ".mitsu", "settings.json"));
  if (user?.enableAllProjectMcpServers === true) result.enableAll = true;
  const userFiles = [join(home, ".mitsu", "settings.json"), join(home, ".claude", "settings.json")];
  for (const folder of [".mitsu", ".claude"]) {
    for (const name of ["settings.json", "settings.local.json"]) {
      const file = join(cwd, folder, name);
      if (userFiles.includes(file)) continue;
      const settings = await readJson(file);
      if (!settings) continue;
      result.disabled.push(...names(settings.disabledMcpjsonServers));
      if (settings.enabledMcpjsonServers !== undefined || settings.enableAllProjectMcpServers !== undefined) {
        result.ignored.push(
          `${file} approves MCP servers, which a file inside the project may not do: approve them yourself (at the terminal, or \`mitsu mcp approve NAME\`); your answers are kept in ${approvalsFile(home)}`,
        );
      }
    }
  }
  const stored = (await readStore(home)).projects[await projectKey(cwd)] ?? {};
  for (const [name, entry] of Object.entries(stored)) {
    if (entry.decision === "deny") result.disabled.push(name);
    else {
      result.enabled.push(name);
      if (entry.fingerprint !== undefined) result.fingerprints[name] = entry.fingerprint;
    }
  }
  return result;
}

/**
 * A denial wins over an approval; `enableAll` approves what is not denied. Given the server's `fingerprint`
 * now, an approval recorded with another fingerprint is `changed`: what was approved is not what would run.
 */
export function approvalOf(name: string, approvals: ProjectApprovals, fingerprint?: string): ApprovalState {
  if (approvals.disabled.includes(name)) return "denied";
  if (approvals.enableAll) return "approved";
  if (!approvals.enabled.includes(name)) return "pending";
  const approved = Object.hasOwn(approvals.fingerprints, name) ? approvals.fingerprints[name] : undefined;
  if (fingerprint !== undefined && approved !== undefined && approved !== fingerprint) return "changed";
  return "approved";
}

/**
 * Records the user's answer for one project server in `~/.mitsu/mcp-approvals.json` (0600), under the project
 * folder's real path. Returns the file written.
 */
export async function recordApproval(
  cwd: string,
  name: string,
  decision: "approve" | "deny",
  /** The configuration's fingerprint, kept with an approval so that a changed server is asked about again. */
  fingerprint?: string,
  options: { home?: string } = {},
): Promise<string> {
  const file = approvalsFile(options.home);
  const store = await readStore(options.home ?? homedir(), true);
  const key = await projectKey(resolve(cwd));
  const servers = { ...(store.projects[key] ?? {}) };
  servers[name] = {
    decision,
    ...(decision === "approve" && fingerprint !== undefined ? { fingerprint } : {}),
    at: new Date().toISOString(),
  };
  store.projects[key] = servers;
  await writeConfigFile(file, `${JSON.stringify(store, null, 2)}\n`, 0o600);
  return file;
}

interface Store {
  version: 1;
  projects: Record<string, Record<string, StoredDecision>>;
}

/** The store; a missing file is empty. A damaged one approves nothing (`strict`: it is an error, not overwritten). */
async function readStore(home: string, strict = false): Promise<Store> {
  const file = approvalsFile(home);
  const empty: Store = { version: 1, projects: Object.create(null) };
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (text === undefined) return empty;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (strict)
      throw new McpConfigError(
        `${file} is not valid JSON, so the answer was not saved: ${(error as Error).message}`,
      );
    return empty;
  }
  if (!isObject(value) || !isObject(value.projects)) {
    if (strict) throw new McpConfigError(`${file} has no "projects" object, so the answer was not saved.`);
    return empty;
  }
  const projects: Store["projects"] = Object.create(null);
  for (const [key, servers] of Object.entries(value.projects)) {
    if (!isObject(servers)) continue;
    const kept: Record<string, StoredDecision> = Object.create(null);
    for (const [name, entry] of Object.entries(servers)) {
      if (!isObject(entry) || (entry.decision !== "approve" && entry.decision !== "deny")) continue;
      kept[name] = {
        decision: entry.decision,
        ...(typeof entry.fingerprint === "string" ? { fingerprint: entry.fingerprint } : {}),
        at: typeof entry.at === "string" ? entry.at : "",
      };
    }
    projects[key] = kept;
  }
  return { version: 1, projects };
}

/** A project's key in the store: its real path (a link to it is the same project). */
function projectKey(cwd: string): Promise<string> {
  return resolveRealPath(cwd).catch(() => cwd);
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
