import { toModelAlias } from "../providers/model-alias.js";
import { parseFrontmatter } from "../skills/parse-frontmatter.js";
import { splitToolList } from "../skills/read-fields.js";
import type { AgentDefinition, AgentSource } from "./agent-definition.js";

/** Why a file was skipped: the field at fault and what is wrong with it. */
export interface AgentFieldError {
  field: string;
  message: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * Reads one agent file in Claude Code's format: YAML frontmatter (`name`, `description`, `tools`, `model`, and
 * `disallowedTools` / `permissionMode: plan`, which can only take away) and the system prompt as the body.
 * Other fields (`color`, `hooks`, …) are ignored. Returns the definition, or the first field at fault.
 */
export function readAgentFile(
  text: string,
  at: { path: string; source: AgentSource },
): { agent: AgentDefinition; repaired: string[]; notices: AgentFieldError[] } | AgentFieldError {
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) return { field: parsed.field, message: parsed.message };
  if (!parsed.hasFrontmatter) {
    return {
      field: "frontmatter",
      message: "is missing: an agent file starts with `---`, then `name:` and `description:`, then `---`",
    };
  }
  const data = parsed.data;
  const name = text_(data, "name", true);
  if (isFieldError(name)) return name;
  if (name === undefined || !NAME.test(name) || name.length > 64) {
    return {
      field: "name",
      message: `"${name}" must be 1–64 letters, digits, "-", "_" or ".", starting with a letter or digit`,
    };
  }
  if (name === "Task") return { field: "name", message: '"Task" is the name of the tool that starts agents' };
  const description = text_(data, "description", true);
  if (isFieldError(description)) return description;
  const prompt = parsed.body;
  if (prompt === "") return { field: "body", message: "is empty: the body is the agent's system prompt" };

  const agent: AgentDefinition = {
    name,
    description: description as string,
    prompt,
    source: at.source,
    path: at.path,
  };
  const notices: AgentFieldError[] = [];
  const tools = toolNames(data, "tools", notices);
  if (isFieldError(tools)) return tools;
  const disallowed = toolNames(data, "disallowedTools", notices);
  if (isFieldError(disallowed)) return disallowed;
  // `tools: *` (Claude Code's "every tool") is the same as no list.
  if (tools !== undefined && !tools.includes("*")) agent.tools = tools;
  if (disallowed !== undefined && disallowed.length > 0) {
    if (agent.tools) agent.tools = agent.tools.filter((tool) => !disallowed.includes(tool));
    else agent.disallowedTools = disallowed;
  }
  const model = text_(data, "model", false);
  if (isFieldError(model)) return model;
  if (model !== undefined) {
    const problem = modelProblem(model);
    // An agent whose model no provider serves still runs, on its parent's model: it is told once, at load.
    if (problem !== undefined)
      notices.push({ field: "model", message: `${problem}; the agent uses its parent's model` });
    else agent.model = model;
  }
  const mode = data.permissionMode;
  if (mode !== undefined && mode !== null) {
    if (typeof mode !== "string") return { field: "permissionMode", message: "must be text" };
    // Only a restriction is honoured: a file in a repository never grants itself more than its parent has.
    if (mode.trim() === "plan") agent.readOnly = true;
  }
  return { agent, repaired: parsed.repaired, notices };
}

export function isFieldError(value: unknown): value is AgentFieldError {
  return typeof value === "object" && value !== null && "field" in value && "message" in value;
}

function text_(
  data: Record<string, unknown>,
  field: string,
  required: boolean,
): string | undefined | AgentFieldError {
  const value = data[field];
  if (value === undefined || value === null) return required ? { field, message: "is required" } : undefined;
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    return { field, message: `must be text, got ${Array.isArray(value) ? "a list" : "a mapping"}` };
  }
  const text = String(value).trim();
  if (text === "") return required ? { field, message: "must not be empty" } : undefined;
  return text;
}

/**
 * The tools an agent file may name: mitsu's own, `mcp__…` (known once the servers are up), and `*`. Claude Code's
 * `Agent` is mitsu's `Task`; its `LS`, `MultiEdit` and `NotebookRead` are done by `Glob`, `Edit` and `Read` here.
 */
const KNOWN_TOOLS = new Set([
  "Read",
  "Write",
  "Edit",
  "Bash",
  "BashOutput",
  "KillShell",
  "Glob",
  "Grep",
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "Skill",
  "Task",
  "ListMcpResources",
  "ReadMcpResource",
]);
const TOOL_EQUIVALENTS: Record<string, string> = {
  Agent: "Task",
  LS: "Glob",
  MultiEdit: "Edit",
  NotebookRead: "Read",
  ListMcpResourcesTool: "ListMcpResources",
  ReadMcpResourceTool: "ReadMcpResource",
};

/** Why no provider could serve an agent's `model`, or undefined when one can (or it is `inherit`). */
function modelProblem(model: string): string | undefined {
  if (model === "inherit" || toModelAlias(model) !== undefined) return undefined;
  if (/\s/.test(model)) return `"${model}" is not a model name`;
  if (model.includes(":")) return undefined;
  if (/^(claude-|gemini-|gpt-|o\d|chatgpt-|codex-)/.test(model)) return undefined;
  return `"${model}" is neither an alias (haiku, sonnet, opus, inherit) nor provider:model`;
}

/**
 * `tools: Read, Grep` (Claude Code's form), `tools: Read Grep`, or a YAML list; empty means absent. `Tool(…)` is
 * read as `Tool` (`Agent(worker)`, `Bash(git:*)`); a name mitsu has no tool for is dropped with a notice and the
 * agent keeps the rest.
 */
function toolNames(
  data: Record<string, unknown>,
  field: string,
  notices: AgentFieldError[],
): string[] | undefined | AgentFieldError {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const names: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") {
      return { field, message: `must be tool names, comma-separated or a YAML list; got ${typeof item}` };
    }
    names.push(...splitToolList(item));
  }
  if (names.length === 0) return undefined;
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const written of names) {
    if (written === "*") {
      kept.push("*");
      continue;
    }
    const bare = written.replace(/\(.*\)$/s, "");
    const name = TOOL_EQUIVALENTS[bare] ?? bare;
    if (KNOWN_TOOLS.has(name) || /^mcp__[\w-]+(__[\w*-]+)?$/.test(name)) kept.push(name);
    else dropped.push(written);
  }
  if (dropped.length > 0) {
    notices.push({
      field,
      message: `${dropped.map((n) => JSON.stringify(n)).join(", ")} ${dropped.length === 1 ? "is not a tool" : "are not tools"} mitsu has; left out`,
    });
  }
  return [...new Set(kept)];
}
