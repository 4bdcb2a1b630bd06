import { relative, sep } from "node:path";
import type { AgentDefinition } from "./agent-definition.js";
import { formatAgentWarning } from "./agent-definition.js";
import type { AgentDefinitions } from "./load-agent-definitions.js";

/**
 * The text of `mitsu agents`: each agent (name, where from, tools, model, file), then each skipped file and
 * why, then notices. `toolNames` (the session's tools) marks the tools an agent names that this mitsu lacks.
 */
export function formatAgentsReport(
  result: Pick<AgentDefinitions, "agents" | "warnings"> & { ignored?: readonly string[] },
  options: { cwd?: string; toolNames?: readonly string[] } = {},
): string {
  const show = (path: string) => displayPath(path, options.cwd);
  const out: string[] = [];
  out.push(result.agents.length === 0 ? "Agents: none" : `Agents (${result.agents.length}):`);
  for (const agent of result.agents) {
    const where = agent.path ? `  ${show(agent.path)}` : "";
    out.push(
      `  ${agent.name}  [${agent.plugin ? `plugin ${agent.plugin}` : (agent.source ?? "code")}]${where}`,
    );
    out.push(`      tools: ${toolsText(agent, options.toolNames)}`);
    out.push(`      model: ${agent.model ?? "inherit"}${agent.readOnly ? "  (read-only)" : ""}`);
    out.push(`      ${oneLine(agent.description)}`);
  }
  const skipped = result.warnings.filter((w) => w.skipped);
  const notices = result.warnings.filter((w) => !w.skipped);
  if (skipped.length > 0) {
    out.push("", `Skipped (${skipped.length}):`);
    for (const warning of skipped) out.push(`  ${formatAgentWarning({ ...warning, skipped: false }, show)}`);
  }
  if (notices.length > 0) {
    out.push("", `Notices (${notices.length}):`);
    for (const warning of notices) out.push(`  ${formatAgentWarning(warning, show)}`);
  }
  if (result.ignored && result.ignored.length > 0) {
    out.push(
      "",
      `Ignored, as this folder is not trusted (run mitsu with --trust, or answer yes at a terminal) (${result.ignored.length}):`,
    );
    for (const line of result.ignored) out.push(`  ${line}`);
  }
  out.push(
    "",
    "Searched: .mitsu/agents, .claude/agents (project), ~/.mitsu/agents, ~/.claude/agents (user), and the built-ins.",
  );
  return out.join("\n");
}

function toolsText(agent: AgentDefinition, known: readonly string[] | undefined): string {
  if (!agent.tools) {
    const but = ["Task", ...(agent.disallowedTools ?? [])];
    return `all of the parent's but ${but.join(", ")}`;
  }
  if (!known) return agent.tools.join(", ");
  const missing = agent.tools.filter((name) => !known.includes(name));
  const text = agent.tools.filter((name) => known.includes(name)).join(", ") || "(none)";
  return missing.length > 0 ? `${text}  (not available here: ${missing.join(", ")})` : text;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function displayPath(path: string, cwd: string | undefined): string {
  if (cwd === undefined) return path;
  const rel = relative(cwd, path);
  return rel === "" || rel.startsWith("..") ? path : rel.split(sep).join("/");
}
