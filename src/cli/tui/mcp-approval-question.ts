import { type McpApprovalAnswer, type McpServerEntry, printable, variablesUsed } from "../../mcp/index.js";
import type { Style } from "../render/style.js";
import type { Question } from "./question-dialog.js";

/**
 * The question about a project MCP server nobody has approved, as a dialog: what the repository's `.mcp.json`
 * would run (command and arguments, or the URL) and which environment variables it would read. 1 start it /
 * 2 don't (both remembered for this project); Esc skips it (not started, asked again next time).
 */
export function mcpApprovalQuestion(entry: McpServerEntry, style: Style): Question<McpApprovalAnswer> {
  const config = entry.config;
  // Everything but mitsu's own words comes from the repository's file: escaped.
  const lines: string[] = [];
  if (config.type === "stdio") {
    lines.push(`runs: ${[config.command, ...config.args].map(quote).join(" ")}`);
    const env = Object.entries(config.env);
    if (env.length > 0) lines.push(`with: ${env.map(([k, v]) => `${printable(k)}=${quote(v)}`).join(" ")}`);
  } else {
    lines.push(`connects to (${config.type}): ${printable(config.url)}`);
    const headers = Object.keys(config.headers);
    if (headers.length > 0) lines.push(`sends the headers: ${printable(headers.join(", "))}`);
  }
  const variables = variablesUsed(config);
  if (variables.length > 0) lines.push(`reads your environment variables: ${variables.join(", ")}`);
  lines.push(style.dim("A project's servers run with your rights; start only those you trust."));
  return {
    title: `${printable(entry.source)} asks to start the MCP server ${printable(entry.name)}`,
    body: () => lines,
    prompt: "Start it? (remembered for this project)",
    options: [
      { key: "1", aliases: ["y"], label: "Yes, start it", answer: "approve" },
      { key: "2", aliases: ["n"], label: "No, never start it here", answer: "deny" },
    ],
    escape: "skip",
    hint: "Esc to skip it this time",
  };
}

function quote(word: string): string {
  // JSON.stringify escapes control characters too.
  return /^[\w@%+=:,./-]+$/.test(word) ? word : printable(JSON.stringify(word));
}
