/** Provider keys removed by name (they do not all end in `_API_KEY`). */
export const DROPPED_ENV_NAMES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
];

/** Any variable whose name ends in `_API_KEY` is removed too (MISTRAL_API_KEY, GROQ_API_KEY, …). */
const API_KEY_NAME = /_API_KEY$/i;

/**
 * The environment for commands the model runs: the parent's, minus provider API keys, so that a command
 * (or a script it was talked into running) cannot read or leak the keys mitsu itself uses. Other
 * secrets such as `GITHUB_TOKEN` stay: commands like `gh` or `npm publish` legitimately need them, and
 * a Bash command is already governed by the permission rules.
 */
export function buildCommandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || DROPPED_ENV_NAMES.includes(name) || API_KEY_NAME.test(name)) continue;
    result[name] = value;
  }
  return result;
}
