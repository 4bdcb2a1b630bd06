import { type ProjectMcp, printable } from "../../mcp/index.js";
import type { Style } from "../render/style.js";

type StatusLine = ReturnType<ProjectMcp["status"]>[number];

/**
 * The MCP servers as `mitsu mcp list` and `/mcp` show them: one line per server with its transport, where it was
 * configured, and how it stands — its tool count when connected, why it failed, or how to approve or log in.
 */
export function formatMcpStatus(status: readonly StatusLine[], style: Style): string {
  if (status.length === 0) {
    return "No MCP servers configured. Add one with `mitsu mcp add NAME -- COMMAND ARGS…` or `mitsu mcp add --transport http NAME URL`.";
  }
  const width = Math.max(...status.map((s) => s.name.length));
  const lines = status.map((raw) => {
    // Names and errors come from configuration files and servers: no escape sequences of theirs on the screen.
    const s = { ...raw, name: printable(raw.name), ...(raw.error ? { error: printable(raw.error) } : {}) };
    const head = `${s.name.padEnd(width)}  ${s.transport.padEnd(5)}  ${s.scope.padEnd(7)}  `;
    return head + describe(s, style);
  });
  return lines.join("\n");
}

function describe(s: StatusLine, style: Style): string {
  switch (s.state) {
    case "connected": {
      const parts = [`${s.tools} tool${s.tools === 1 ? "" : "s"}`];
      if (s.prompts > 0) parts.push(`${s.prompts} prompt${s.prompts === 1 ? "" : "s"}`);
      if (s.resources) parts.push("resources");
      return `${style.green("connected")}  ${parts.join(", ")} ${style.dim(`(${s.durationMs} ms)`)}`;
    }
    case "failed":
      return `${style.red("failed")}: ${s.error ?? "unknown error"}`;
    case "needs-auth":
      return `${style.yellow("needs login")}: run \`mitsu mcp login ${s.name}\`${s.error ? ` ${style.dim(`(${s.error})`)}` : ""}`;
    case "not-approved":
      return `${style.yellow("not approved")}: approve it with \`mitsu mcp approve ${s.name}\` or by answering mitsu's question in interactive mode`;
    case "untrusted":
      return `${style.yellow("not started")}: this folder is not trusted (run mitsu here interactively and trust it)`;
    case "denied":
      return `${style.dim("denied")} (undo with \`mitsu mcp approve ${s.name}\`)`;
    default:
      return s.state;
  }
}
