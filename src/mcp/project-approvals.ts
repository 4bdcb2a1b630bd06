import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { canonicalJson } from "../context/canonical-json.js";
import { SAFE_GIT_CONFIG } from "../context/git-snapshot.js";
import { McpConfigError } from "./mcp-server-config.js";
import { isObject } from "./parse-mcp-config.js";
import { writeConfigFile } from "./write-config-file.js";

/** What the user decided about a project's `.mcp.json` servers. */
export interface ProjectApprovals {
  enabled: string[];
  disabled: string[];
  /** `enableAllProjectMcpServers`: every server of the project's `.mcp.json` may start. */
  enableAll: boolean;
  /**
   * `mitsuMcpServerFingerprints`: for each server approved through mitsu, the fingerprint of its configuration
   * as approved (see `mcpServerFingerprint`). A name approved by hand or by another tool has none.
   */
  fingerprints: Record<string, string>;
  /** Why some settings were not honoured (a decision file the repository itself carries), for a warning. */
  ignored: string[];
}

/** `changed`: approved once, but its configuration is not the one approved (a pull changed `.mcp.json`). */
export type ApprovalState = "approved" | "denied" | "pending" | "changed";

/**
 * The fingerprint an approval is kept under: sha256 of the server's configuration as written in `.mcp.json`
 * (before `${VAR}` expansion, so a rotated token does not re-ask), re-serialised with sorted keys.
 */
export function mcpServerFingerprint(config: unknown): string {
  return createHash("sha256").update(canonicalJson(config)).digest("hex");
}

/** Where approvals are written: the project's untracked settings (Claude Code's keys and file). */
export function localSettingsFile(cwd: string): string {
  return join(resolve(cwd), ".mitsu", "settings.local.json");
}

/**
 * Reads the decisions about project servers: `enabledMcpjsonServers`, `disabledMcpjsonServers` and
 * `enableAllProjectMcpServers` from `.mitsu/settings.local.json`, and `enableAllProjectMcpServers` from
 * `~/.mitsu/settings.json`. A repository grants itself nothing: the shared `.mitsu/settings.json` is not read for
 * these keys, and neither is a `settings.local.json` that git tracks (a cloned repository could carry one that
 * approves its own servers); `ignored` says so.
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
    fingerprints: {},
    ignored: [],
  };
  const user = await readJson(join(home, ".mitsu", "settings.json"));
  if (user?.enableAllProjectMcpServers === true) result.enableAll = true;
  const shared = join(cwd, ".mitsu", "settings.json");
  if (shared !== join(home, ".mitsu", "settings.json")) {
    const project = await readJson(shared);
    if (project && hasApprovalKeys(project)) {
      result.ignored.push(
        `${shared} approves MCP servers, which a project's shared settings may not do (approve them yourself; the answer is kept in .mitsu/settings.local.json)`,
      );
    }
  }
  const file = localSettingsFile(cwd);
  const local = await readJson(file);
  if (local && hasApprovalKeys(local)) {
    if (await trackedByGit(cwd, file)) {
      result.ignored.push(
        `${file} is tracked by git, so its MCP approvals came with the repository and are ignored (untrack it: git rm --cached .mitsu/settings.local.json)`,
      );
    } else {
      result.enabled.push(...names(local.enabledMcpjsonServers));
      result.disabled.push(...names(local.disabledMcpjsonServers));
      if (local.enableAllProjectMcpServers === true) result.enableAll = true;
      result.fingerprints = fingerprintsOf(local.mitsuMcpServerFingerprints);
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

/** Records the user's answer for one project server in `.mitsu/settings.local.json`, keeping the file's other keys. */
export async function recordApproval(
  cwd: string,
  name: string,
  decision: "approve" | "deny",
  /** The configuration's fingerprint, kept with an approval so that a changed server is asked about again. */
  fingerprint?: string,
): Promise<void> {
  const file = localSettingsFile(cwd);
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  let document: Record<string, unknown> = {};
  if (text !== undefined) {
    try {
      const value: unknown = JSON.parse(text);
      if (!isObject(value)) throw new Error("not a JSON object");
      document = value;
    } catch (error) {
      throw new McpConfigError(
        `${file} is not valid settings JSON, so the answer was not saved: ${(error as Error).message}`,
      );
    }
  }
  const enabled = names(document.enabledMcpjsonServers).filter((n) => n !== name);
  const disabled = names(document.disabledMcpjsonServers).filter((n) => n !== name);
  (decision === "approve" ? enabled : disabled).push(name);
  document.enabledMcpjsonServers = enabled;
  document.disabledMcpjsonServers = disabled;
  const fingerprints = fingerprintsOf(document.mitsuMcpServerFingerprints);
  delete fingerprints[name];
  if (decision === "approve" && fingerprint !== undefined) fingerprints[name] = fingerprint;
  if (Object.keys(fingerprints).length > 0) document.mitsuMcpServerFingerprints = fingerprints;
  else delete document.mitsuMcpServerFingerprints;
  await writeConfigFile(file, `${JSON.stringify(document, null, 2)}\n`);
}

function hasApprovalKeys(value: Record<string, unknown>): boolean {
  return (
    value.enabledMcpjsonServers !== undefined ||
    value.disabledMcpjsonServers !== undefined ||
    value.enableAllProjectMcpServers !== undefined
  );
}

function fingerprintsOf(value: unknown): Record<string, string> {
  const result: Record<string, string> = Object.create(null);
  if (!isObject(value)) return result;
  for (const [name, hash] of Object.entries(value)) if (typeof hash === "string") result[name] = hash;
  return result;
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

async function readJson(file: string): Promise<Record<string, unknown> | undefined> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when git tracks `file` in the repository around `cwd`; false outside a repository or without git. Under
 * `SAFE_GIT_CONFIG`, as the git snapshot runs: reading the index runs the repository's `core.fsmonitor`, and
 * the folder may not be trusted.
 */
function trackedByGit(cwd: string, file: string): Promise<boolean> {
  return new Promise((done) => {
    execFile(
      "git",
      [...SAFE_GIT_CONFIG.flatMap((setting) => ["-c", setting]), "ls-files", "--error-unmatch", "--", file],
      {
        cwd,
        timeout: 5000,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "" },
      },
      (error) => done(error === null),
    );
  });
}
