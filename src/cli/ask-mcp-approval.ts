import { type McpApprovalAnswer, type McpServerEntry, printable, variablesUsed } from "../mcp/index.js";
import type { LineInput } from "./line-input.js";
import type { Style } from "./style.js";

/**
 * The question about a project server nobody has approved: what the repository's `.mcp.json` would run (the command
 * and its arguments, or the URL) and which environment variables it would read, then `y` or `n` — remembered for
 * this project. Ended input answers `skip`: not started, asked again next time.
 */
export function createMcpApprovalQuestion(options: {
  input: LineInput;
  write: (text: string) => void;
  style: Style;
}): (entry: McpServerEntry) => Promise<McpApprovalAnswer> {
  const { input, style } = options;
  return async (entry) => {
    // Everything shown comes from the repository's file: no escape sequence of its own may reach the screen.
    const write = (text: string) => options.write(printable(text));
    const config = entry.config;
    write(`${style.yellow("?")} ${entry.source} asks to start the MCP server ${style.bold(entry.name)}:\n`);
    if (config.type === "stdio") {
      write(`  runs: ${[config.command, ...config.args].map(quote).join(" ")}\n`);
      const env = Object.entries(config.env);
      if (env.length > 0) write(`  with: ${env.map(([k, v]) => `${k}=${quote(v)}`).join(" ")}\n`);
    } else {
      write(`  connects to (${config.type}): ${config.url}\n`);
      const headers = Object.keys(config.headers);
      if (headers.length > 0) write(`  sends the headers: ${headers.join(", ")}\n`);
    }
    const variables = variablesUsed(config);
    if (variables.length > 0) write(`  reads your environment variables: ${variables.join(", ")}\n`);
    write(style.dim("  A project's servers run with your rights; start only those you trust.\n"));
    for (;;) {
      const line = await input.read("Start it? [y]es / [n]o (remembered for this project) ", { fresh: true });
      if (line === undefined) {
        write("\n");
        return "skip";
      }
      const answer = line.trim().toLowerCase();
      if (answer === "y" || answer === "yes") return "approve";
      if (answer === "n" || answer === "no") return "deny";
      write(style.dim("  Please answer y or n.\n"));
    }
  };
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word);
}
