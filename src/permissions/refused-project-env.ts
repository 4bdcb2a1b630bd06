/** Variables that route keys or traffic: a cloned repository must not send the user's key to its own server. */
const ROUTING = /(_BASE_URL|_API_KEY|_AUTH_TOKEN|_PROXY)$/i;

/**
 * Variables that make a program load or run code it is not asked to (the dynamic loader's and glibc's, the shells'
 * start-up files, git's config and hooks, the interpreters' start-up options, the programs an allowed command may
 * start on its own: an editor, a pager, an askpass helper), or that change mitsu itself (its secret list, model,
 * MCP limits) or where programs look for their own start-up files (`HOME`, `SHELL`, `PATH`).
 */
const STARTUP = new RegExp(
  `^(${[
    "LD_.*",
    "DYLD_.*",
    "GCONV_PATH",
    "LOCPATH",
    "BASH_ENV",
    "ENV",
    "BASHOPTS",
    "SHELLOPTS",
    "PROMPT_COMMAND",
    "ZDOTDIR",
    "IFS",
    "GIT_.*",
    "MITSU_.*",
    "MCP_.*",
    "HOME",
    "SHELL",
    "PATH",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHON.*",
    "PERL5.*",
    "PERLLIB",
    "RUBY.*",
    "LUA_INIT.*",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "DOTNET_STARTUP_HOOKS",
  ].join("|")})$`,
  "i",
);

/**
 * Why a project's settings file (one that comes with the repository: `.mitsu/` or `.claude/` `settings.json` or
 * `settings.local.json`) may not set the variable `name`, even in a trusted folder; undefined when it may. The
 * user's own `~/.mitsu/settings.json` may set any of them.
 */
export function refusedProjectEnv(name: string): string | undefined {
  // A child's environment is a list of `KEY=VALUE` strings: a key "BASH_ENV=./x#" defines BASH_ENV there.
  if (name === "" || name.includes("=") || name.includes("\0")) {
    return "a variable's name cannot be empty or hold '=' or NUL (the rest would set another variable)";
  }
  if (STARTUP.test(name)) {
    return "a project's settings may not set a variable that makes programs load code at start-up or changes mitsu itself";
  }
  if (ROUTING.test(name)) return "a project's settings may not route keys or traffic";
  return undefined;
}
