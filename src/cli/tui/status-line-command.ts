import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isFolderTrusted } from "../../permissions/index.js";
import { parseJsonc } from "../../permissions/parse-jsonc.js";
import { childEnv } from "../../process/child-env.js";
import { stripControls } from "../render/terminal-text.js";

/** The `statusLine` setting in Claude Code's shape: `{"type": "command", "command": "…"}`, and the file it is in. */
export interface StatusLineSetting {
  command: string;
  file: string;
}

/**
 * The most specific settings file's `statusLine` command. A project's (it runs a command of the repository's)
 * counts only in a trusted folder, as its hooks do; the user's always.
 */
export async function readStatusLineSetting(
  cwd: string,
  home: string,
): Promise<StatusLineSetting | undefined> {
  const user = [join(home, ".claude", "settings.json"), join(home, ".mitsu", "settings.json")];
  const project = [
    ".claude/settings.json",
    ".mitsu/settings.json",
    ".claude/settings.local.json",
    ".mitsu/settings.local.json",
  ].map((file) => join(cwd, file));
  const trusted = await isFolderTrusted(cwd, { home }).catch(() => false);
  let found: StatusLineSetting | undefined;
  for (const file of [...user, ...(trusted ? project : [])]) {
    let value: unknown;
    try {
      value = parseJsonc(await readFile(file, "utf8"));
    } catch {
      continue;
    }
    const setting = (value as { statusLine?: { type?: unknown; command?: unknown } } | null)?.statusLine;
    if (
      setting &&
      setting.type === "command" &&
      typeof setting.command === "string" &&
      setting.command.trim()
    ) {
      found = { command: setting.command, file };
    }
  }
  return found;
}

/** Past this the command is stopped and the status line keeps mitsu's own text. */
const STATUS_TIMEOUT_MS = 3000;

/**
 * Runs the status line command as Claude Code does: `sh -c command` in the project folder, its JSON on stdin
 * (`session_id`, `cwd`, `model`, `workspace`, `cost`, …); the first line of its stdout, control sequences removed, is
 * the status line. Undefined when it fails, prints nothing or takes longer than 3 s. The environment is scrubbed of
 * provider keys, as for hooks.
 */
export function runStatusLine(
  command: string,
  input: Record<string, unknown>,
  where: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: where.cwd,
      env: childEnv(where.env),
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(undefined);
    }, STATUS_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      if (out.length < 64 * 1024) out += chunk.toString("utf8");
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolve(undefined);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = stripControls(out.split("\n")[0] ?? "").trim();
      resolve(code === 0 && line !== "" ? line : undefined);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

/** The JSON a status line command reads, in Claude Code's shape (the fields mitsu knows). */
export function statusLineInput(at: {
  sessionId: string | undefined;
  cwd: string;
  model: string;
  costUsd: number | undefined;
  version: string;
}): Record<string, unknown> {
  return {
    hook_event_name: "Status",
    session_id: at.sessionId ?? "",
    cwd: at.cwd,
    model: { id: at.model, display_name: at.model },
    workspace: { current_dir: at.cwd, project_dir: at.cwd },
    version: at.version,
    cost: { total_cost_usd: at.costUsd ?? 0 },
  };
}
