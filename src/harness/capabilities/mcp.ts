import type { HookRunner } from "../../hooks/index.js";
import { createMcpOAuth, type McpServerEntry, type ProjectMcp, startProjectMcp } from "../../mcp/index.js";
import { askElicitation } from "../ask-elicitation.js";
import type { Questions } from "../asker.js";
import type { Capability } from "../capability.js";
import type { CodingAgentOptions } from "../coding-agent.js";
import type { WorkspaceSetup } from "../workspace-setup.js";

/** The MCP servers, once started; undefined before, or with `mcp: false`. */
export interface McpCapability extends Capability {
  readonly project: ProjectMcp | undefined;
}

/**
 * The MCP servers: started at start-up (they connect while the rest is assembled); their tools come last, in
 * their fixed order, and a server's changed list is taken in between prompts; their prompts are slash commands.
 */
export function mcpCapability(
  mcpOptions: CodingAgentOptions["mcp"],
  setup: WorkspaceSetup,
  questions: Questions,
  /**
   * Whether the definitions' byte cap is lifted: with ToolSearch on, tools whose definitions would take a share of
   * the window are deferred (never sent), so the cap would only cut tools that could have been found.
   */
  deferrable: boolean,
  /** The hooks, once assembled (an elicitation comes only mid-call, after start-up): Elicitation, ElicitationResult. */
  hooks: () => HookRunner | undefined,
): McpCapability {
  let project: ProjectMcp | undefined;
  const approve = questions.asFunction("mcp-server", (entry: McpServerEntry) => ({
    kind: "mcp-server",
    entry,
  }));
  return {
    name: "mcp",
    get project() {
      return project;
    },
    async start() {
      if (mcpOptions === false) return;
      const { cwd, home, env, trusted, warn } = setup;
      project = await startProjectMcp({
        cwd,
        home,
        env,
        ...(mcpOptions?.configFiles ? { configFiles: mcpOptions.configFiles } : {}),
        ...(mcpOptions?.strict ? { strict: true } : {}),
        // A project's .mcp.json counts only in a trusted folder; there each server is still approved one by one.
        projectTrusted: trusted,
        ...(deferrable && setup.env.MITSU_MCP_MAX_TOOL_BYTES === undefined
          ? { limits: { maxToolBytes: Number.POSITIVE_INFINITY } }
          : {}),
        repositoryEnv: setup.settings.projectEnvKeys,
        extraServers: setup.contributed.mcpServers,
        // The embedder's handler, else the Asker's `elicitation` question; checked against the form either way.
        elicit: askElicitation(questions, mcpOptions?.elicit, warn, hooks),
        ...(approve ? { approve } : {}),
        // Without a person to log in (print mode, an embedder), a server that needs one is reported as such.
        oauth: mcpOptions?.oauth ?? createMcpOAuth({ home, interactive: false }),
        onWarning: warn,
      });
    },
    tools: () => project?.servers.tools ?? [],
    toolsChanged: () => project?.servers.applyChanges(),
    commands: () =>
      project?.servers.prompts.map((prompt) => ({
        name: prompt.name,
        expand: (args: string, signal?: AbortSignal) => prompt.expand(args, signal),
      })) ?? [],
    async close() {
      await project?.servers.close();
    },
  };
}
