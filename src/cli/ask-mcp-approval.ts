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
  const { input, write, style } = options;
  return async (entry) => {
    const config = entry.config;
    // Everything shown but mitsu's own words comes from the repository's file: no escape sequence of its own may
    // reach the screen (quote() and the lines below pass it through printable()).
    write(
      `${style.yellow("?")} ${printable(entry.source)} asks to start the MCP server ${style.bold(printable(entry.name))}:\n`,
    );
    if (config.type === "stdio") {
      write(`  runs: ${[config.command, ...config.args].map(quote).join(" ")}\n`);
      const env = Object.entries(config.env);
      if (env.length > 0) write(`  with: ${env.map(([k, v]) => `${printable(k)}=${quote(v)}`).join(" ")}\n`);
    } else {
      write(`  connects to (${config.type}): ${printable(config.url)}\n`);
      const headers = Object.keys(config.headers);
      if (headers.length > 0) write(`  sends the headers: ${printable(headers.join(", "))}\n`);
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
  // JSON.stringify escapes control characters too.
  return /^[\w@%+=:,./-]+$/.test(word) ? word : printable(JSON.stringify(word));
}
