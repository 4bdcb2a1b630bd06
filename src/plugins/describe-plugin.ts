import type { Plugin } from "./read-plugin.js";

/** What a plugin holds, for the user: its parts by count, and the commands its hooks and MCP servers run. */
export function describePlugin(plugin: Plugin): string[] {
  const lines: string[] = [];
  const parts = [
    ["command folder", plugin.commands.length],
    ["agent folder", plugin.agents.length],
    ["skill folder", plugin.skills.length],
  ] as const;
  const counted = parts.filter(([, n]) => n > 0).map(([what, n]) => `${n} ${what}${n === 1 ? "" : "s"}`);
  if (counted.length > 0) lines.push(counted.join(", "));
  for (const { hooks } of plugin.hooks) {
    for (const [event, groups] of Object.entries(hooks)) {
      for (const group of Array.isArray(groups) ? groups : []) {
        const g = (group ?? {}) as { matcher?: unknown; hooks?: unknown };
        for (const hook of Array.isArray(g.hooks) ? g.hooks : []) {
          const command = (hook as { command?: unknown }).command;
          const matcher = typeof g.matcher === "string" && g.matcher !== "" ? ` [${g.matcher}]` : "";
          lines.push(
            `hook ${event}${matcher}: ${typeof command === "string" ? command : JSON.stringify(hook)}`,
          );
        }
      }
    }
  }
  for (const { servers } of plugin.mcpServers) {
    for (const [name, server] of Object.entries(servers)) {
      const s = (server ?? {}) as { command?: unknown; args?: unknown; url?: unknown };
      const what =
        typeof s.command === "string"
          ? [s.command, ...(Array.isArray(s.args) ? s.args : [])].join(" ")
          : String(s.url ?? "?");
      lines.push(`MCP server ${name}: ${what}`);
    }
  }
  if (plugin.lspServers.length > 0) {
    lines.push(
      `LSP servers ${plugin.lspServers.join(", ")}: ignored (mitsu has no language-server support; they never run)`,
    );
  }
  return lines;
}
