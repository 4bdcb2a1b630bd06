import { type Tool, toToolDefinition } from "../loop/tool.js";

export interface ToolSearchInput {
  /** Keywords, or `select:name1,name2` for tools by exact name. */
  query: string;
  /** At most this many tools (default 5). */
  max_results?: number;
}

/**
 * `ToolSearch`: finds deferred tools (sent without definitions) by keyword or by name (`select:a,b`) and returns
 * their full definitions — name, description, input schema — as its result, so the model can call them by name.
 * The set it searches is read at each call (a server's changed list is searched at once).
 */
export function createToolSearchTool(deferred: () => readonly Tool<never>[]): Tool<ToolSearchInput> {
  return {
    name: "ToolSearch",
    description:
      'Finds tools that are available but not loaded (their names are listed at the start of the conversation) and returns their full definitions, so you can call them. Search by keywords ("slack message send"), or load tools by exact name with "select:name1,name2". Call a tool only after its definition was returned here.',
    inputSchema: {
      type: "object",
      properties: {
        query: { type: "string", description: 'Keywords, or "select:<tool name>,<tool name>"' },
        max_results: { type: "number", description: "The most tools to return (default 5)", minimum: 1 },
      },
      required: ["query"],
      additionalProperties: false,
    },
    readOnly: true,
    summarize: (input) => `ToolSearch(${input.query})`,
    async run(input) {
      const tools = deferred();
      const limit = Math.max(1, Math.min(Math.floor(input.max_results ?? 5), 50));
      const found = searchTools(tools, input.query).slice(0, limit);
      if (found.length === 0) {
        return `No tool matches "${input.query}". ${tools.length} tools are searchable; try other words.`;
      }
      const definitions = found.map((tool) => {
        const { name, description, input_schema } = toToolDefinition(tool);
        return { name, description, input_schema };
      });
      return `${found.length} tool${found.length === 1 ? "" : "s"} found; call ${found.length === 1 ? "it" : "them"} by name:\n${JSON.stringify(definitions, null, 1)}`;
    },
  };
}

/** The tools that match `query`: `select:a,b` by exact name, in that order; else by keyword score, best first. */
export function searchTools(tools: readonly Tool<never>[], query: string): Tool<never>[] {
  const trimmed = query.trim();
  if (trimmed.startsWith("select:")) {
    const names = trimmed
      .slice("select:".length)
      .split(",")
      .map((n) => n.trim())
      .filter((n) => n !== "");
    return names.flatMap((name) => tools.filter((t) => t.name === name));
  }
  const terms = trimmed
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 1);
  if (terms.length === 0) return [];
  const scored = tools.map((tool, index) => {
    const name = tool.name.toLowerCase();
    const words = new Set(name.split(/[^a-z0-9]+/));
    const description = tool.description.toLowerCase();
    let score = 0;
    for (const term of terms) {
      if (words.has(term)) score += 10;
      else if (name.includes(term)) score += 5;
      if (description.includes(term)) score += 2;
    }
    return { tool, index, score };
  });
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((s) => s.tool);
}
