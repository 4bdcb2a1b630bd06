import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** How to put Claude Code where the bench finds it: 373 MB, so it is not a devDependency (CI would download it). */
export const CLAUDE_CODE_INSTALL = "npm install --no-save @anthropic-ai/claude-code@2.1.328";

/**
 * The Claude Code binary to measure beside mitsu: `CLAUDE_BIN`, else the native binary that
 * `npm install --no-save @anthropic-ai/claude-code` put in this checkout's node_modules; undefined when neither.
 */
export function findClaudeCode(repoRoot: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.CLAUDE_BIN) return env.CLAUDE_BIN;
  const native = join(
    repoRoot,
    "node_modules",
    "@anthropic-ai",
    `claude-code-${process.platform}-${process.arch}`,
    "claude",
  );
  return existsSync(native) ? native : undefined;
}

/**
 * A fresh home in which Claude Code starts straight at its prompt, as it does for a user who has used it before:
 * onboarding done, the bench's key approved, the work folder trusted. (Without these its first screen is a
 * question, not the prompt.)
 */
export function prepareClaudeHome(home: string, cwd: string, apiKey: string): void {
  writeFileSync(
    join(home, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
      projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
    }),
  );
}

/** Claude Code's environment for the bench: the loopback server as its API, and no traffic of its own. */
export function claudeCodeEnv(home: string, baseUrl: string, apiKey: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TERM: "xterm-256color",
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_BASE_URL: baseUrl,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
  };
}
