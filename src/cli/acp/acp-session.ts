import { realpathSync } from "node:fs";
import {
  type ContentBlock as AcpBlock,
  type AgentContext,
  type ClientCapabilities,
  type McpServer,
  type PromptResponse,
  RequestError,
  type SessionConfigOption,
  type SessionUpdate,
  type StopReason,
} from "@agentclientprotocol/sdk";
import { isInside } from "../../fs/real-path.js";
import { type CodingAgent, createCodingAgent, type ModelChoice } from "../../harness/index.js";
import type { AgentStopReason } from "../../loop/agent-event.js";
import type { McpElicitationAnswer, McpElicitationRequest } from "../../mcp/index.js";
import { elicitationMessage } from "../../mcp/mcp-elicitation.js";
import type { ContentBlock } from "../../messages/index.js";
import type { PermissionAnswer, PermissionMode, PermissionRequest } from "../../permissions/index.js";
import { findSlashTarget, parseSlash } from "../../skills/index.js";
import { agentOptionsFor } from "../agent-options.js";
import type { CliOptions } from "../cli-options.js";
import { preparePrompt } from "../conversation/prepare-prompt.js";
import { availableCommands } from "./available-commands.js";
import { runBuiltin } from "./builtin-slash.js";
import { clientMcpConfig } from "./client-mcp-servers.js";
import { editorFiles } from "./editor-files.js";
import { editorTerminal } from "./editor-terminal.js";
import { EventUpdates } from "./event-updates.js";
import { historyUpdates } from "./history-updates.js";
import { PERMISSION_OPTIONS, permissionAnswer } from "./permission-options.js";
import { promptBlocks } from "./prompt-blocks.js";
import { sessionModes } from "./session-modes.js";
import { titleOf } from "./session-title.js";

/** What a session needs from the command and the connection. */
export interface AcpSessionSetup {
  options: CliOptions;
  home: string;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
  client: AgentContext;
  capabilities: ClientCapabilities;
  /** The workspace the client named (absolute, an existing folder). */
  cwd: string;
  sessionId: string;
  /** Continue the session file of this id (`session/load`) instead of starting one. */
  resume: boolean;
  mcpServers: readonly McpServer[];
  /** More workspace folders the client named (`additionalDirectories`): absolute, existing. */
  additionalDirectories: readonly string[];
}

/** Provider keys, dropped from an editor terminal's environment even when mitsu's own has none of them. */
const PROVIDER_KEYS = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
];

/** How long closing a session waits for its stopped run to end. */
const CLOSE_WAIT_MS = 5_000;

const STOP_REASONS: Record<AgentStopReason, StopReason> = {
  end_turn: "end_turn",
  stop_sequence: "end_turn",
  denied: "end_turn",
  refusal: "refusal",
  max_turns: "max_turn_requests",
  max_tokens: "max_tokens",
  aborted: "cancelled",
  error: "end_turn",
};

/**
 * One ACP session: one coding agent (its own conversation and session log, its MCP servers, its shells), driven
 * by `session/prompt` and translated to `session/update`s. One prompt at a time; `cancel` stops the running one,
 * which still ends with a valid transcript.
 */
export class AcpSession {
  private running: AbortController | undefined;
  /** Settles when the running prompt has ended (its calls answered, its log lines written). */
  private ended: Promise<unknown> = Promise.resolve();
  /** The model chosen in the editor (`session/set_config_option`); undefined: the agent's own. */
  private model: { value: string; choice: ModelChoice | undefined } = { value: "default", choice: undefined };
  /** The mode the editor was last told of (ExitPlanMode may change it during a prompt). */
  private shownMode: PermissionMode;
  /** The MCP servers whose questions this editor (without forms) was told are declined: told once each. */
  private readonly toldNoForms = new Set<string>();

  private constructor(
    readonly id: string,
    readonly agent: CodingAgent,
    private readonly setup: AcpSessionSetup,
    private readonly updates: EventUpdates,
  ) {
    this.shownMode = agent.permissionMode.mode;
  }

  static async open(setup: AcpSessionSetup): Promise<AcpSession> {
    const { client, capabilities, sessionId, cwd } = setup;
    // Set before any tool runs: the callbacks below reach the session through it.
    let session: AcpSession | undefined;
    const files = capabilities.fs ? editorFiles(client, sessionId, capabilities.fs) : undefined;
    const terminal = capabilities.terminal
      ? editorTerminal(
          client,
          sessionId,
          (toolUseId, terminalId) => session?.showTerminal(toolUseId, terminalId),
          () => session?.secretNames() ?? [...PROVIDER_KEYS],
        )
      : undefined;
    const fromClient = clientMcpConfig(setup.mcpServers);
    const options: CliOptions = {
      ...setup.options,
      resume: setup.resume ? sessionId : undefined,
      continueSession: false,
      forkSession: false,
      mcpConfig: [...setup.options.mcpConfig, ...(fromClient ? [fromClient] : [])],
      addDirs: [...setup.options.addDirs, ...setup.additionalDirectories],
    };
    const base = agentOptionsFor(
      options,
      { cwd, home: setup.home, env: setup.env },
      { onWarning: setup.warn },
    );
    const agent = await createCodingAgent({
      ...base,
      // The editor answers the harness's questions through the Asker, as the terminal does: permission questions
      // (so "always" is saved by the harness the same way: settings.local.json, remembered as the user's own rule)
      // and a server's elicitation (`elicitation/create`).
      asker: {
        kinds: ["permission", "elicitation"],
        ask: (question) => {
          if (question.kind === "permission")
            return session ? session.askPermission(question.request) : "deny";
          return question.kind === "elicitation" && session ? session.elicit(question.request) : undefined;
        },
        notify: (message) => setup.warn(message),
      },
      session: { ...base.session, ...(setup.resume ? {} : { id: sessionId }) },
      ...(files ? { files } : {}),
      ...(terminal ? { terminal } : {}),
    });
    let realCwd = cwd;
    try {
      realCwd = realpathSync(cwd);
    } catch {}
    // The workspace folders as they are now: a folder a hook or the client's answer adds mid-session counts at once.
    const inside = (path: string) => {
      try {
        const real = realpathSync(path);
        return [realCwd, ...agent.folders.list()].some((root) => isInside(root, real));
      } catch {
        return false;
      }
    };
    const updates = new EventUpdates({
      cwd,
      tool: (name) => agent.tools.find((t) => t.name === name),
      summarize: (block) => agent.summarize(block),
      inside,
    });
    session = new AcpSession(sessionId, agent, setup, updates);
    return session;
  }

  get modes() {
    return sessionModes(this.agent.permissionMode.mode);
  }

  /** The model selector (ACP config option `model`): the session's model and the aliases of its provider. */
  get configOptions(): SessionConfigOption[] {
    const options = [{ value: "default", name: `${this.agent.providerName}:${this.agent.model}` }];
    for (const alias of ["haiku", "sonnet", "opus"]) {
      const choice = this.modelFor(alias);
      if (choice && choice.model !== this.agent.model)
        options.push({ value: alias, name: `${alias} (${choice.model})` });
    }
    return [
      {
        id: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: this.model.value,
        options,
      },
    ];
  }

  setModel(value: string): void {
    if (value === "default") {
      this.model = { value, choice: undefined };
      return;
    }
    const choice = ["haiku", "sonnet", "opus"].includes(value) ? this.modelFor(value) : undefined;
    if (!choice) throw RequestError.invalidParams({ value }, `no model ${JSON.stringify(value)} here`);
    this.model = { value, choice };
  }

  setMode(mode: PermissionMode): void {
    this.shownMode = mode;
    this.agent.permissions.setMode(mode);
    void this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  /** Sends the slash commands the session offers (after `session/new` or `session/load` was answered). */
  announceCommands(): void {
    void this.send({
      sessionUpdate: "available_commands_update",
      availableCommands: availableCommands(this.agent),
    });
  }

  /** The conversation so far as updates (`session/load`), sent before the load is answered. */
  async replay(): Promise<void> {
    const replayed = new EventUpdates({
      cwd: this.setup.cwd,
      tool: (name) => this.agent.tools.find((t) => t.name === name),
      summarize: (block) => this.agent.summarize(block),
      // A diff is of the call as it was made: today's file is not what it changed.
      inside: () => false,
    });
    for (const update of historyUpdates(this.agent.history, replayed)) await this.send(update);
  }

  async prompt(prompt: readonly AcpBlock[]): Promise<PromptResponse> {
    if (this.running) {
      throw RequestError.invalidRequest(
        { sessionId: this.id },
        "a prompt is already running in this session: cancel it (session/cancel) or wait for its end",
      );
    }
    const controller = new AbortController();
    this.running = controller;
    let done: () => void = () => {};
    this.ended = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      const builtin = await this.builtin(prompt, controller.signal);
      if (builtin !== undefined) {
        await this.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: builtin } });
        return { stopReason: controller.signal.aborted ? "cancelled" : "end_turn" };
      }
      const prepared = await this.prepare(prompt, controller.signal);
      // The conversation's title, for the editor's list: its first prompt.
      if (this.agent.history.length === 0) {
        const first = prompt.find((block) => block.type === "text");
        if (first?.type === "text" && first.text.trim() !== "") {
          void this.send({ sessionUpdate: "session_info_update", title: titleOf(first.text) });
        }
      }
      const run = this.agent.prompt(prepared.prompt, {
        signal: controller.signal,
        ...(prepared.model ? { model: prepared.model } : {}),
      });
      for (;;) {
        const next = await run.next();
        if (next.done) {
          await this.sendUsage();
          if (controller.signal.aborted) return { stopReason: "cancelled" };
          if (next.value.reason === "error") {
            throw RequestError.internalError(
              { sessionId: this.id },
              next.value.error?.message ?? "the run failed",
            );
          }
          return { stopReason: STOP_REASONS[next.value.reason] };
        }
        const event = next.value;
        // What the terminal prints as a notice (a hook's, a retry's) goes to the agent's log, stderr.
        if (event.type === "warning" && event.agentPath.length === 0) this.setup.warn(event.message);
        for (const update of this.updates.updates(event)) await this.send(update);
        // An approved plan (ExitPlanMode) switched the mode: the editor's mode menu follows.
        const mode = this.agent.permissionMode.mode;
        if (mode !== this.shownMode) {
          this.shownMode = mode;
          await this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
        }
      }
    } finally {
      this.running = undefined;
      done();
    }
  }

  /** Stops the running prompt (`session/cancel`): it ends with stopReason "cancelled". */
  cancel(): void {
    this.running?.abort();
  }

  /** Ends the session: the running prompt stops, shells and MCP servers stop, the log is closed. */
  async close(): Promise<void> {
    this.cancel();
    // The stopped run answers its calls and writes its last lines before the log is closed (not waited on forever).
    await Promise.race([this.ended, new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref())]);
    await this.agent.close();
  }

  /**
   * An MCP server's form, asked of an editor that offers form elicitation (`elicitation/create`, session-scoped);
   * another editor is told in the conversation, once per server, that the server's questions are declined.
   */
  async elicit(request: McpElicitationRequest): Promise<McpElicitationAnswer> {
    if (!this.setup.capabilities.elicitation?.form) {
      // Once per server: one asking in a loop would otherwise fill the conversation with the same line.
      if (this.toldNoForms.has(request.server)) return { action: "decline" };
      this.toldNoForms.add(request.server);
      await this.send({
        sessionUpdate: "agent_message_chunk",
        content: {
          type: "text",
          text: `\n\nMCP server ${JSON.stringify(request.server)} asked for input; declined: this editor does not show forms.\n\n`,
        },
      });
      return { action: "decline" };
    }
    try {
      const response = await this.setup.client.request(
        "elicitation/create",
        {
          sessionId: this.id,
          mode: "form",
          message: elicitationMessage(request),
          requestedSchema: request.schema as never,
        },
        request.signal ? { cancellationSignal: request.signal, stopWaitingOnCancel: true } : {},
      );
      return response as McpElicitationAnswer;
    } catch {
      return { action: "decline" };
    }
  }

  async askPermission(request: PermissionRequest): Promise<PermissionAnswer> {
    const block = {
      type: "tool_use" as const,
      id: request.toolUseId,
      name: request.toolName,
      input: request.input,
    };
    const view = this.updates.view(block);
    let answer: PermissionAnswer;
    try {
      const response = await this.setup.client.request(
        "session/request_permission",
        {
          sessionId: this.id,
          toolCall: {
            toolCallId: EventUpdates.callId(request.agentPath ?? [], request.toolUseId),
            title: request.agent ? `${view.title} (${request.agent})` : view.title,
            kind: view.kind,
            status: "pending",
            locations: view.locations,
            content: view.content,
            rawInput: request.input,
          },
          options: PERMISSION_OPTIONS,
        },
        request.signal ? { cancellationSignal: request.signal, stopWaitingOnCancel: true } : {},
      );
      answer = permissionAnswer(response);
    } catch {
      // Cancelled, or the client failed to answer: nothing was allowed.
      return "deny";
    }
    return answer;
  }

  private showTerminal(toolUseId: string, terminalId: string): void {
    const callId = this.updates.callIdOf(toolUseId);
    this.updates.terminalShown(callId);
    void this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: callId,
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
  }

  /**
   * The variables no command may see: the provider keys, and whatever else the harness kept from its child
   * processes (models.json keys, `MITSU_SECRET_ENV`), sorted.
   */
  secretNames(): string[] {
    const dropped = Object.keys(this.setup.env).filter((name) => !(name in this.agent.childEnv));
    return [...new Set([...PROVIDER_KEYS, ...dropped])].sort();
  }

  /** How full the context window is and what the session cost (`usage_update`), after each prompt. */
  private async sendUsage(): Promise<void> {
    const { limit, used } = this.agent.contextWindow();
    if (used === undefined) return;
    const usd = this.agent.cost().usd;
    await this.send({
      sessionUpdate: "usage_update",
      used,
      size: limit,
      ...(usd !== undefined ? { cost: { amount: usd, currency: "USD" } } : {}),
    });
  }

  private modelFor(spec: string): ModelChoice | undefined {
    try {
      return this.agent.modelFor(spec);
    } catch {
      return undefined;
    }
  }

  /** The text of a built-in command (`/compact`, `/context`, `/cost`) the prompt is, when no skill takes its name. */
  private async builtin(prompt: readonly AcpBlock[], signal: AbortSignal): Promise<string | undefined> {
    const [first] = prompt;
    if (prompt.length !== 1 || first?.type !== "text") return undefined;
    const slash = parseSlash(first.text);
    if (!slash || findSlashTarget(slash.name, this.agent.skills)) return undefined;
    return runBuiltin(this.agent, slash.name, slash.args, signal);
  }

  /** The prompt's blocks, or a slash command's expansion (skills, commands, MCP prompts: no model call). */
  private async prepare(
    prompt: readonly AcpBlock[],
    signal: AbortSignal,
  ): Promise<{ prompt: string | ContentBlock[]; model?: ModelChoice }> {
    let blocks: ContentBlock[];
    try {
      blocks = await promptBlocks(prompt, {
        readable: this.agent.readable,
        images: this.agent.images,
        model: this.agent.model,
      });
    } catch (error) {
      throw RequestError.invalidParams({ sessionId: this.id }, (error as Error).message);
    }
    const model = this.model.choice;
    const [first] = blocks;
    const slash = blocks.length === 1 && first?.type === "text" ? parseSlash(first.text) : undefined;
    if (!slash || first?.type !== "text") return { prompt: blocks, ...(model ? { model } : {}) };
    const expansion = this.agent.expandSlash(first.text);
    if (expansion.kind === "mcp-prompt") {
      try {
        return { prompt: await expansion.expand(signal), ...(model ? { model } : {}) };
      } catch (error) {
        throw RequestError.invalidParams({ sessionId: this.id }, (error as Error).message);
      }
    }
    const target = findSlashTarget(slash.name, this.agent.skills);
    if (!target) return { prompt: blocks, ...(model ? { model } : {}) };
    const prepared = await preparePrompt(
      this.agent,
      first.text,
      { target, args: slash.args },
      {
        cwd: this.setup.cwd,
        signal,
      },
    );
    if ("error" in prepared) throw RequestError.invalidParams({ sessionId: this.id }, prepared.error);
    const chosen = prepared.model ?? model;
    return { prompt: prepared.prompt, ...(chosen ? { model: chosen } : {}) };
  }

  private async send(update: SessionUpdate): Promise<void> {
    await this.setup.client.notify("session/update", { sessionId: this.id, update }).catch(() => undefined);
  }
}
