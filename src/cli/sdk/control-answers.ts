import type { CodingAgent } from "../../harness/index.js";
import type { SdkMcpServerStatus } from "./sdk-mcp-bridge.js";

/** `initialize`'s answer: the commands, the agents and the one model of this session; no account (mitsu has none). */
export function initializeResponse(
  agent: CodingAgent,
  model: string,
  /** `hooksApplied`: whether this request's hooks were registered (absent: it carried none). */
  facts: { hooksApplied?: boolean; manifests: readonly string[] },
) {
  return {
    commands: agent.skills.skills.map((skill) => ({
      name: skill.name,
      description: skill.description,
      argumentHint:
        "argumentHint" in skill && typeof skill.argumentHint === "string" ? skill.argumentHint : "",
    })),
    agents: agent.agents.agents.map((a) => ({
      name: a.name,
      description: a.description,
      ...(a.model ? { model: a.model } : {}),
    })),
    output_style: "default",
    available_output_styles: ["default"],
    models: [
      {
        value: model,
        resolvedModel: model,
        displayName: model,
        description: `${agent.providerName}:${model} (through mitsu; set_model takes any provider:model)`,
      },
    ],
    // mitsu has no account: the key comes from the environment (or models.json) of the provider in use.
    account: {},
    ...(facts.hooksApplied !== undefined ? { hooks_applied: facts.hooksApplied } : {}),
    ...(facts.manifests.length > 0
      ? { sdk_mcp_manifests_parked: Object.fromEntries(facts.manifests.map((n) => [n, "parked"])) }
      : {}),
  };
}

const STATE: Record<string, string> = {
  connecting: "pending",
  connected: "connected",
  failed: "failed",
  "needs-auth": "needs-auth",
  closed: "disabled",
};

/** The MCP servers as `mcp_status` and `system/init` give them: mitsu's own, then the app's in-process ones. */
export function mcpServerStatuses(agent: CodingAgent, sdkServers: readonly SdkMcpServerStatus[]) {
  return [
    ...(agent.mcp?.status() ?? []).map((s) => ({
      name: s.name,
      status: STATE[s.state] ?? "pending",
      ...(s.error ? { error: s.error } : {}),
      scope: s.scope,
    })),
    ...sdkServers.map((s) => ({
      name: s.name,
      status: s.status,
      ...(s.error ? { error: s.error } : {}),
      ...(s.serverInfo ? { serverInfo: s.serverInfo } : {}),
      config: { type: "sdk", name: s.name },
      scope: "dynamic",
      tools: s.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}) })),
    })),
  ];
}

/** `get_context_usage`: the next request's parts (estimated at 4 characters a token) against the window. */
export function contextUsage(agent: CodingAgent, model: string) {
  const breakdown = agent.contextBreakdown();
  const { limit, used } = agent.contextWindow();
  const mcpTokens = breakdown.rows
    .filter((r) => r.kind === "tool" && /^tools\[\d+\] mcp__/.test(r.part))
    .reduce((n, r) => n + r.tokens, 0);
  const sum = (kind: string) =>
    breakdown.rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.tokens, 0);
  const categories = [
    { id: "system_prompt", name: "System prompt", tokens: sum("system"), color: "gray", kind: "used" },
    {
      id: "system_tools",
      name: "System tools",
      tokens: sum("tool") - mcpTokens,
      color: "gray",
      kind: "used",
    },
    { id: "mcp_tools", name: "MCP tools", tokens: mcpTokens, color: "cyan", kind: "used" },
    {
      id: "messages",
      name: "Messages",
      tokens: sum("message") + sum("reminder"),
      color: "purple",
      kind: "used",
    },
  ];
  const total = categories.reduce((n, c) => n + c.tokens, 0);
  categories.push({
    id: "free_space",
    name: "Free space",
    tokens: Math.max(0, limit - total),
    color: "gray",
    kind: "free",
  });
  return {
    categories,
    totalTokens: total,
    maxTokens: limit,
    rawMaxTokens: limit,
    percentage: limit > 0 ? Math.round((total / limit) * 1000) / 10 : 0,
    gridRows: [],
    model,
    memoryFiles: [],
    mcpTools: breakdown.rows
      .filter((r) => r.kind === "tool" && /^tools\[\d+\] mcp__/.test(r.part))
      .map((r) => {
        const name = r.part.replace(/^tools\[\d+\] /, "");
        return { name, serverName: name.split("__")[1] ?? "", tokens: r.tokens };
      }),
    agents: [],
    isAutoCompactEnabled: agent.compactionThreshold !== undefined,
    ...(agent.compactionThreshold !== undefined ? { autoCompactThreshold: agent.compactionThreshold } : {}),
    apiUsage:
      used === undefined
        ? null
        : {
            input_tokens: used,
            output_tokens: 0,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
          },
  };
}
