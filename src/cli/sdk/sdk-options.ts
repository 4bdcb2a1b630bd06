import { readFileSync } from "node:fs";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { SdkAgentDefinition, SdkFlags, SettingSource } from "../sdk-flags.js";

/**
 * Flags of the SDK's that mitsu cannot honour: refused with the reason, so that an app learns at once what it
 * relies on (never a silent difference).
 */
const UNSUPPORTED: Record<string, string> = {
  "--plugin-dir-no-mcp": "a plugin without its MCP servers is not supported by mitsu (use --plugin-dir)",
  "--channels": "MCP channels are not supported by mitsu",
  "--agent": "running the main thread as a named agent is not supported by mitsu",
  "--task-budget": "task budgets are not supported by mitsu (use --max-budget-usd)",
  "--permission-prompts": "permission prompt kinds are not supported by mitsu",
  "--sdk-url": "remote session transports are not supported by mitsu",
  "--session-mirror": "session stores (sessionStore) are not supported by mitsu",
  "--project-config-root": "a separate project configuration root is not supported by mitsu",
  "--resume-session-at": "resuming at a given message is not supported by mitsu",
  "--resume-drops-turn": "resuming without the last turn is not supported by mitsu",
  "--session-id": "choosing the session id is not supported by mitsu (it makes its own)",
  "--initialize-fields":
    "settings and disallowedTools through initialize are not supported by mitsu (use the argv delivery)",
  "--managed-settings": "managed settings are not supported by mitsu",
  "--managed-settings-in-initialize": "managed settings are not supported by mitsu",
  "--settings": "settings given on the command line are not supported by mitsu (use .mitsu/settings.json)",
};

/** Accepted, with no effect in mitsu (named once on stderr). */
const IGNORED = [
  "--debug",
  "--debug-file",
  "--debug-to-stderr",
  "--effort",
  "--betas",
  "--fallback-model",
  "--thinking-display",
  "--include-hook-events",
  "--await-initialize",
  "--allow-dangerously-skip-permissions",
];

/** `--flag` → commander's camelCase attribute name. */
function attribute(flag: string): string {
  return flag.replace(/^--/, "").replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError("must be a number of at least 0");
  return n;
}

/** Declares the SDK's flags on mitsu's main command. */
export function addSdkOptions(program: Command): Command {
  program
    .option(
      "--system-prompt <text>",
      "the system prompt instead of mitsu's (Claude Agent SDK's systemPrompt)",
    )
    .option(
      "--json-schema <schema>",
      "structured output: the final answer must validate against this JSON schema (result.structured_output)",
    )
    .option(
      "--max-budget-usd <usd>",
      "stop a prompt once it has cost this many US dollars (error_max_budget_usd)",
      nonNegativeNumber,
    )
    .option("--include-partial-messages", "stream-json: also the model's stream events (stream_event lines)")
    .option("--max-thinking-tokens <n>", "extended thinking with this budget (0: off)", nonNegativeNumber)
    .option(
      "--agents <json>",
      'sub-agent types as JSON: {"name": {"description", "prompt", "tools", "model"}}',
    )
    .option(
      "--permission-prompt-tool <tool>",
      "stdio: ask the program on standard input (the Claude Agent SDK's canUseTool)",
    )
    .option(
      "--setting-sources <sources>",
      "which settings files to read: user,project,local (comma-separated)",
    )
    .option("--tools <tools>", "only these built-in tools (comma-separated; default: all)")
    .option("--no-session-persistence", "do not write the session transcript (as --no-session-log)");
  for (const flag of IGNORED) {
    const takesValue = ["--debug-file", "--effort", "--betas", "--fallback-model", "--thinking-display"];
    program.addOption(
      new Option(
        `${flag}${takesValue.includes(flag) ? " <value>" : ""}`,
        "accepted for the Claude Agent SDK; no effect",
      ).hideHelp(),
    );
  }
  for (const flag of Object.keys(UNSUPPORTED)) {
    const bare = flag === "--managed-settings-in-initialize";
    program.addOption(new Option(`${flag}${bare ? "" : " <value>"}`, UNSUPPORTED[flag]).hideHelp());
  }
  return program;
}

/** The SDK flags of a parsed command line; throws a message naming the flag for one mitsu cannot honour. */
export function sdkFlagsFrom(opts: Record<string, unknown>): SdkFlags {
  for (const [flag, reason] of Object.entries(UNSUPPORTED)) {
    if (opts[attribute(flag)] !== undefined) throw new Error(`${flag}: ${reason}`);
  }
  const flags: SdkFlags = {
    ignored: IGNORED.filter((flag) => opts[attribute(flag)] !== undefined),
  };
  if (typeof opts.systemPrompt === "string") flags.systemPrompt = opts.systemPrompt;
  if (typeof opts.systemPromptFile === "string") {
    try {
      flags.systemPrompt = readFileSync(opts.systemPromptFile, "utf8");
    } catch (error) {
      throw new Error(
        `--system-prompt-file: cannot read ${opts.systemPromptFile} (${(error as Error).message})`,
      );
    }
  }
  if (typeof opts.jsonSchema === "string") {
    const schema = parseJson(opts.jsonSchema, "--json-schema");
    if (typeof schema !== "object" || schema === null || Array.isArray(schema))
      throw new Error("--json-schema: must be a JSON object (a JSON schema)");
    flags.jsonSchema = schema as Record<string, unknown>;
  }
  if (typeof opts.maxBudgetUsd === "number") flags.maxBudgetUsd = opts.maxBudgetUsd;
  if (opts.includePartialMessages === true) flags.includePartialMessages = true;
  if (opts.maxThinkingTokens === 0) flags.thinkingOff = true;
  if (typeof opts.agents === "string") flags.agents = parseAgents(opts.agents);
  if (typeof opts.permissionPromptTool === "string") {
    if (opts.permissionPromptTool !== "stdio")
      throw new Error(
        `--permission-prompt-tool: only "stdio" is supported by mitsu (an MCP permission prompt tool, ${JSON.stringify(opts.permissionPromptTool)}, is not)`,
      );
    flags.permissionPromptStdio = true;
  }
  if (typeof opts.settingSources === "string") flags.settingSources = parseSources(opts.settingSources);
  if (typeof opts.tools === "string" && opts.tools !== "default") {
    flags.tools = opts.tools
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
  }
  if (opts.sessionPersistence === false) flags.noSessionPersistence = true;
  return flags;
}

/** The thinking budget of `--max-thinking-tokens` (at least 1024 when on), or undefined. */
export function thinkingBudgetOf(opts: Record<string, unknown>): number | undefined {
  const n = opts.maxThinkingTokens;
  if (typeof n !== "number" || n === 0) return undefined;
  return Math.max(1024, Math.floor(n));
}

function parseJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${flag}: not valid JSON (${(error as Error).message})`);
  }
}

function parseSources(text: string): SettingSource[] {
  const sources = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const source of sources) {
    if (source !== "user" && source !== "project" && source !== "local")
      throw new Error(
        `--setting-sources: unknown source ${JSON.stringify(source)} (use user, project, local)`,
      );
  }
  return sources as SettingSource[];
}

/** `--agents` JSON, checked: each agent needs a description and a prompt. */
export function parseAgents(text: string | Record<string, unknown>): Record<string, SdkAgentDefinition> {
  const value = typeof text === "string" ? parseJson(text, "--agents") : text;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error("--agents: must be a JSON object of agent definitions");
  const agents: Record<string, SdkAgentDefinition> = {};
  for (const [name, raw] of Object.entries(value)) {
    const def = raw as Partial<SdkAgentDefinition> | null;
    if (typeof def?.description !== "string" || typeof def.prompt !== "string")
      throw new Error(`--agents: the agent ${JSON.stringify(name)} needs a description and a prompt`);
    agents[name] = {
      description: def.description,
      prompt: def.prompt,
      ...(Array.isArray(def.tools) ? { tools: def.tools.map(String) } : {}),
      ...(Array.isArray(def.disallowedTools) ? { disallowedTools: def.disallowedTools.map(String) } : {}),
      ...(typeof def.model === "string" ? { model: def.model } : {}),
    };
  }
  return agents;
}
