/**
 * The servers' `instructions` as Claude Code puts them in its system prompt: one section, a heading per server.
 * Undefined when no server sent any. Built once, at session start (the servers are connected before the first
 * request), so the system prompt stays byte-stable for the prompt cache.
 */
export function renderMcpInstructions(
  instructions: ReadonlyArray<{ server: string; text: string }>,
): string | undefined {
  if (instructions.length === 0) return undefined;
  return [
    "# MCP Server Instructions",
    "",
    "The following MCP servers have provided instructions for how to use their tools and resources:",
    ...instructions.flatMap(({ server, text }) => ["", `## ${server}`, text]),
  ].join("\n");
}
