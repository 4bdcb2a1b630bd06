import type { TextBlock } from "../messages/index.js";
import { corePrompt } from "./core-prompt.js";
import { detectEnvironment, renderEnvironment } from "./environment.js";
import {
  type GitSnapshot,
  type GitSnapshotOptions,
  renderGitSnapshot,
  takeGitSnapshot,
} from "./git-snapshot.js";
import { memoryDir, renderMemorySection } from "./memory.js";

export interface BuildSystemPromptOptions {
  cwd: string;
  /** The workspace folders besides `cwd`, named in the environment section (as they are at the session's start). */
  additionalFolders?: readonly string[];
  model: string;
  /** The home folder for `~/.mitsu`; default `os.homedir()`. */
  home?: string;
  /** The session start; default now. */
  now?: Date;
  /** Which tools the core prompt describes; default all built-in tools. */
  toolNames?: string[];
  /** Caller text appended as its own block (e.g. an output-style or a sub-agent's role). */
  extra?: string;
  /** False: the core prompt without its software-engineering instructions (see `corePrompt`). Default true. */
  codingInstructions?: boolean;
  git?: GitSnapshotOptions;
  /** A snapshot already taken (or under way: started early, its git runs overlap other start-up work); `git` is then unused. */
  gitSnapshot?: GitSnapshot | Promise<GitSnapshot>;
  /** Injectable for tests; default `process.env` / `process.platform`. */
  env?: Record<string, string | undefined>;
  platform?: string;
}

/**
 * The `system` field. Call once per session and reuse the result for every request: it is a pure
 * function of its inputs plus the git snapshot taken now, so a second call may differ if the repository
 * changed — which is exactly why it must not be rebuilt mid-session.
 *
 * Blocks, most stable first: core instructions; memory; environment + git snapshot; `extra`. No block
 * carries `cache_control` here: `applyCacheBreakpoints` marks the last one per request.
 */
export async function buildSystemPrompt(options: BuildSystemPromptOptions): Promise<TextBlock[]> {
  const snapshot = await (options.gitSnapshot ?? takeGitSnapshot(options.cwd, options.git ?? {}));
  const environment = detectEnvironment({
    cwd: options.cwd,
    ...(options.additionalFolders ? { additionalFolders: options.additionalFolders } : {}),
    model: options.model,
    ...(options.now ? { now: options.now } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.platform ? { platform: options.platform } : {}),
  });
  const texts = [
    corePrompt(options.toolNames, { codingInstructions: options.codingInstructions !== false }),
    renderMemorySection(memoryDir({ cwd: options.cwd, ...(options.home ? { home: options.home } : {}) })),
    `${renderEnvironment(environment)}\n\n${renderGitSnapshot(snapshot)}`,
  ];
  if (options.extra !== undefined && options.extra.trim() !== "") texts.push(options.extra);
  return texts.map((text) => ({ type: "text", text }));
}
