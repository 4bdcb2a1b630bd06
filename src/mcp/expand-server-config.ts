import { McpConfigError, type McpServerConfig } from "./mcp-server-config.js";

/** `${NAME}` or `${NAME:-default}`. */
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` (the default when VAR is unset or empty, as in a shell) in the strings a
 * server is started with: command, args, env, cwd, url and headers. A variable that is unset and has no default
 * is an `McpConfigError` naming each such variable and where it is used: that server cannot start, the others can.
 */
export function expandServerConfig(
  name: string,
  config: McpServerConfig,
  env: Record<string, string | undefined>,
): McpServerConfig {
  const missing: string[] = [];
  const expand = (text: string, where: string) =>
    text.replace(VARIABLE, (_match, variable: string, fallback: string | undefined) => {
      const value = env[variable];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      if (value === "") return "";
      missing.push(`${variable} (in ${where})`);
      return "";
    });
  const record = (values: Record<string, string>, key: string) =>
    Object.fromEntries(Object.entries(values).map(([k, v]) => [k, expand(v, `${key}.${k}`)]));
  let expanded: McpServerConfig;
  if (config.type === "stdio") {
    expanded = {
      type: "stdio",
      command: expand(config.command, "command"),
      args: config.args.map((arg, i) => expand(arg, `args[${i}]`)),
      env: record(config.env, "env"),
    };
    if (config.cwd !== undefined) expanded.cwd = expand(config.cwd, "cwd");
  } else {
    expanded = {
      type: config.type,
      url: expand(config.url, "url"),
      headers: record(config.headers, "headers"),
    };
  }
  if (missing.length > 0) {
    const list = missing.join(", ");
    throw new McpConfigError(
      `MCP server "${name}" cannot start: ${missing.length === 1 ? "the environment variable" : "the environment variables"} ${list} ${missing.length === 1 ? "is" : "are"} not set and ${missing.length === 1 ? "has" : "have"} no default (write \${NAME:-default} for one).`,
    );
  }
  return expanded;
}

/** The names of the variables a configuration uses, for the approval question (`${ANTHROPIC_API_KEY}` is worth seeing). */
export function variablesUsed(config: McpServerConfig): string[] {
  const texts =
    config.type === "stdio"
      ? [config.command, ...config.args, ...Object.values(config.env), config.cwd ?? ""]
      : [config.url, ...Object.values(config.headers)];
  const names = new Set<string>();
  for (const text of texts) for (const match of text.matchAll(VARIABLE)) names.add(match[1]!);
  return [...names];
}
