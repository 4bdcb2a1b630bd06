import { detectEnvironment, renderEnvironment } from "../context/environment.js";
import { renderGitSnapshot, takeGitSnapshot } from "../context/git-snapshot.js";

/**
 * The environment section of sub-agents' system prompts, for `SubagentSpawnerOptions.environment`: the working
 * folder, platform, shell, the session's start date and the child's model, then a git snapshot taken once, at
 * the first child. The same text for every child of a model, so a second child's `system` is read from the
 * prompt cache.
 */
export function subagentEnvironment(options: {
  cwd: string;
  /** The session start (the date the section names). */
  now: Date;
  env?: Record<string, string | undefined>;
  platform?: string;
}): (model: string) => Promise<string> {
  let snapshot: Promise<string> | undefined;
  return async (model) => {
    snapshot ??= takeGitSnapshot(options.cwd).then(renderGitSnapshot);
    const environment = detectEnvironment({
      cwd: options.cwd,
      model,
      now: options.now,
      ...(options.env ? { env: options.env } : {}),
      ...(options.platform ? { platform: options.platform } : {}),
    });
    return `${renderEnvironment(environment)}\n\n${await snapshot}`;
  };
}
