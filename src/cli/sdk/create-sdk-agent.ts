import type { AgentDefinition } from "../../agents/index.js";
import { type CodingAgent, createCodingAgent } from "../../harness/index.js";
import { agentOptionsFor } from "../agent-options.js";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import type { SdkAgentDefinition } from "../sdk-flags.js";
import type { ControlChannel } from "./control-channel.js";
import { elicitationAsker } from "./elicitation-bridge.js";
import { createHookBridge, type SdkHookMatcher } from "./hook-bridge.js";
import { createPermissionBridge } from "./permission-bridge.js";
import {
  connectSdkMcpServers,
  type SdkMcpManifest,
  type SdkMcpServerStatus,
  splitSdkServers,
} from "./sdk-mcp-bridge.js";
import { parseAgents } from "./sdk-options.js";
import {
  createStructuredOutput,
  STRUCTURED_OUTPUT_INSTRUCTION,
  STRUCTURED_OUTPUT_TOOL,
} from "./structured-output.js";

/** The `initialize` request's fields mitsu reads. */
export interface InitializeRequest {
  /** Null from the Python SDK when there are none. */
  hooks?: Record<string, SdkHookMatcher[]> | null;
  sdkMcpServers?: string[];
  sdkMcpServerManifests?: Record<string, SdkMcpManifest>;
  jsonSchema?: Record<string, unknown>;
  systemPrompt?: string[];
  appendSystemPrompt?: string;
  agents?: Record<string, unknown>;
}

/**
 * The coding agent an SDK app asks for: the command line's options, and what `initialize` carries — the app's
 * hooks (as `hook_callback` requests), its in-process MCP servers (connected now, over `mcp_message`), its
 * agents, system prompt and JSON schema (a `StructuredOutput` tool); questions go to the app (`can_use_tool`)
 * with `--permission-prompt-tool stdio`; an MCP server's elicitation always does (`elicitation`).
 */
export async function createSdkAgent(
  options: CliOptions,
  io: PrintIo,
  channel: ControlChannel,
  init: InitializeRequest,
): Promise<{
  agent: CodingAgent;
  sdkServers: SdkMcpServerStatus[];
  structured: ReturnType<typeof createStructuredOutput> | undefined;
}> {
  const sdk = options.sdk ?? { ignored: [] };
  if (sdk.ignored.length > 0)
    io.stderr.write(
      `mitsu: accepted for the Claude Agent SDK, with no effect in mitsu: ${sdk.ignored.join(", ")}\n`,
    );
  const hooks = createHookBridge(init.hooks ?? undefined, channel);
  if (hooks.unsupported.length > 0)
    io.stderr.write(
      `mitsu: hook events mitsu does not fire (their callbacks never run): ${hooks.unsupported.join(", ")}\n`,
    );
  // In-process servers: named in initialize (TypeScript SDK) or in --mcp-config as type "sdk" (Python SDK).
  const split = splitSdkServers(options.mcpConfig);
  const named = Array.isArray(init.sdkMcpServers)
    ? init.sdkMcpServers.filter((n) => typeof n === "string")
    : [];
  const names = [...new Set([...named, ...split.sdkServers])];
  const sdkMcp = await connectSdkMcpServers(names, init.sdkMcpServerManifests, channel);
  const schema = init.jsonSchema ?? sdk.jsonSchema;
  const structured = schema ? createStructuredOutput(schema) : undefined;
  const systemPrompt = init.systemPrompt?.join("\n\n") ?? sdk.systemPrompt;
  const append = [
    options.appendSystemPrompt,
    init.appendSystemPrompt,
    schema ? STRUCTURED_OUTPUT_INSTRUCTION : undefined,
  ]
    .filter((t): t is string => typeof t === "string" && t !== "")
    .join("\n\n");
  const agents = { ...sdk.agents, ...(init.agents ? parseAgents(init.agents) : {}) };
  const onWarning = (m: string) => io.stderr.write(`⚠ ${m}\n`);
  const base = agentOptionsFor({ ...options, mcpConfig: split.configs }, io, {
    onWarning,
    ...(sdk.permissionPromptStdio ? { ask: createPermissionBridge(channel, onWarning) } : {}),
  });
  const agent = await createCodingAgent({
    ...base,
    ...(append !== "" ? { appendSystemPrompt: append } : {}),
    // An empty system prompt (the SDK's default when the app gives none) keeps mitsu's own: its tools need it.
    ...(systemPrompt !== undefined && systemPrompt.trim() !== "" ? { systemPrompt } : {}),
    ...(sdk.settingSources ? { settingSources: sdk.settingSources } : {}),
    allowedTools: [...(base.allowedTools ?? []), ...(schema ? [STRUCTURED_OUTPUT_TOOL] : [])],
    // `--tools`: the harness knows which tools are its own.
    ...(sdk.tools ? { builtinTools: sdk.tools } : {}),
    tools: [...sdkMcp.tools, ...(structured ? [structured.tool] : [])],
    hooks: hooks.callbacks,
    // A server's elicitation goes to the app (`onElicitation`); the other questions to the options above.
    asker: elicitationAsker(channel),
    agents: Object.entries(agents).map(([name, a]) => agentDefinition(name, a)),
  });
  return { agent, sdkServers: sdkMcp.status, structured };
}

function agentDefinition(name: string, a: SdkAgentDefinition): AgentDefinition {
  return {
    name,
    description: a.description,
    prompt: a.prompt,
    ...(a.tools ? { tools: a.tools } : {}),
    ...(a.disallowedTools ? { disallowedTools: a.disallowedTools } : {}),
    ...(a.model ? { model: a.model } : {}),
  };
}
