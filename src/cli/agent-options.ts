import type { CodingAgentOptions } from "../harness/index.js";
import type { CliOptions } from "./cli-options.js";

/** The coding agent the command line asks for, in `where` (print and interactive mode build theirs the same way). */
export function agentOptionsFor(
  options: CliOptions,
  where: { cwd: string; home: string; env: NodeJS.ProcessEnv },
  extra: Pick<CodingAgentOptions, "ask" | "askTrust" | "onWarning" | "approveHooks" | "approvePlugin"> & {
    /** The interactive question about project MCP servers, the OAuth login. */
    mcp?: Pick<Exclude<CodingAgentOptions["mcp"], false | undefined>, "approve" | "oauth">;
  },
): CodingAgentOptions {
  const { mcp, ...rest } = extra;
  return {
    cwd: where.cwd,
    home: where.home,
    env: where.env,
    ...(options.model ? { model: options.model } : {}),
    permissionMode: options.permissionMode,
    trust: options.trust,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
    addDirs: options.addDirs,
    toolProtocol: options.toolProtocol,
    ...(options.dumpRequests ? { dumpRequests: options.dumpRequests } : {}),
    ...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    cacheTtl: options.cacheTtl,
    ...(options.sandbox ? { sandbox: true } : {}),
    maxTurns: options.maxTurns,
    ...(options.thinkingBudget !== undefined ? { thinkingBudget: options.thinkingBudget } : {}),
    verboseHooks: options.verbose,
    verboseNotices: options.verbose,
    ...(options.pluginDirs?.length ? { pluginDirs: options.pluginDirs } : {}),
    ...(options.setupTrigger ? { setupHooks: options.setupTrigger } : {}),
    ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    session: {
      ...(options.resume ? { resume: options.resume } : {}),
      continue: options.continueSession,
      ...(options.forkSession ? { fork: true } : {}),
      log: !options.noSessionLog,
    },
    mcp: { configFiles: options.mcpConfig, strict: options.strictMcpConfig, ...mcp },
    ...rest,
  };
}
