/**
 * The provider key variables mitsu knows by name: the built-in providers' (`ANTHROPIC_API_KEY`, …) and those of
 * the wire formats' usual neighbours (Azure, AWS Bedrock's bearer token, Vertex). They do not all end in
 * `_API_KEY`, so they are listed; the model registry's own names are checked against this list by a test.
 */
export const PROVIDER_KEY_ENV_NAMES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "AWS_BEARER_TOKEN_BEDROCK",
  "OPENROUTER_API_KEY",
];

/** Any variable whose name ends in `_API_KEY` is a key too (MISTRAL_API_KEY, GROQ_API_KEY, …). */
const API_KEY_NAME = /_API_KEY$/i;

/**
 * The variable in which a user lists more names to keep from child processes, separated by commas or spaces;
 * a name ending in `*` is a prefix (`MITSU_SECRET_ENV="GITHUB_TOKEN, AWS_*"`).
 */
export const SECRET_ENV_LIST = "MITSU_SECRET_ENV";

export interface ChildEnvOptions {
  /**
   * More variable names to drop: the `apiKeyEnv` of every `~/.mitsu/models.json` provider (the model registry's
   * `configuredKeyEnvNames`), or whatever else the caller keeps secret. A name ending in `*` is a prefix.
   */
  drop?: Iterable<string>;
}

/**
 * The environment for a child process that mitsu starts — a Bash command, the start-up git snapshot, a hook,
 * an MCP server: the parent's, minus every provider key mitsu knows (`PROVIDER_KEY_ENV_NAMES`, any `*_API_KEY`),
 * the names in `options.drop`, and the names the user lists in `MITSU_SECRET_ENV`. A child (or a script it was
 * talked into running, or a repository's git config) then cannot read or leak the keys mitsu itself uses. Other
 * secrets such as `GITHUB_TOKEN` stay unless listed: `gh` or `npm publish` legitimately need them.
 */
export function childEnv(env: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const isSecret = secretEnvMatcher([...(options.drop ?? []), ...listedNames(env[SECRET_ENV_LIST])]);
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || isSecret(name)) continue;
    result[name] = value;
  }
  return result;
}

/** The names in a `MITSU_SECRET_ENV`-style list. */
function listedNames(list: string | undefined): string[] {
  return (list ?? "").split(/[\s,]+/).filter((name) => name !== "");
}

/** True for a variable `childEnv` drops, given the extra names (exact, or a prefix ending in `*`). */
export function secretEnvMatcher(extra: Iterable<string>): (name: string) => boolean {
  const exact = new Set<string>(PROVIDER_KEY_ENV_NAMES);
  const prefixes: string[] = [];
  for (const name of extra) {
    if (name.endsWith("*")) {
      if (name.length > 1) prefixes.push(name.slice(0, -1));
    } else exact.add(name);
  }
  return (name) => exact.has(name) || API_KEY_NAME.test(name) || prefixes.some((p) => name.startsWith(p));
}
