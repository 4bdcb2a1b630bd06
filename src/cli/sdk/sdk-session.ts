import { randomUUID } from "node:crypto";
import type { CodingAgent, ModelChoice } from "../../harness/index.js";
import type { AgentEvent, AgentResult } from "../../loop/agent-event.js";
import { addUsage, type ContentBlock, emptyUsage } from "../../messages/index.js";
import { PERMISSION_MODES, type PermissionMode } from "../../permissions/permission-mode.js";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import { contextUsage, initializeResponse, mcpServerStatuses } from "./control-answers.js";
import type { ControlBody, ControlChannel } from "./control-channel.js";
import { createSdkAgent, type InitializeRequest } from "./create-sdk-agent.js";
import { failedResult } from "./failed-result.js";
import { modelFacts } from "./model-usage.js";
import type { SdkMcpServerStatus } from "./sdk-mcp-bridge.js";
import { createSdkOutput, initMessage, type SdkStop } from "./sdk-messages.js";
import { prepareSdkPrompt, type SdkPrompt } from "./sdk-prompt.js";
import {
  type createStructuredOutput,
  STRUCTURED_OUTPUT_REMINDER,
  STRUCTURED_OUTPUT_RETRIES,
} from "./structured-output.js";

/** Control requests mitsu answers; any other subtype gets a "not supported by mitsu" error. */
const SUPPORTED = [
  "initialize",
  "interrupt",
  "set_permission_mode",
  "set_model",
  "set_max_thinking_tokens",
  "mcp_status",
  "mcp_message",
  "get_context_usage",
  "rewind_files",
];

/**
 * One SDK session: the coding agent (made at `initialize`, or at the first user message when the app sends
 * none), the prompts it runs one after another, and the answers to the app's control requests — which are
 * answered at once, also while a prompt runs.
 */
export class SdkSession {
  private agent: CodingAgent | undefined;
  private starting: Promise<CodingAgent> | undefined;
  private startError: string | undefined;
  private modelChoice: ModelChoice | undefined;
  /** A mode set_permission_mode asked for before the agent existed (after that, the agent's is the one). */
  private mode: PermissionMode | undefined;
  private sdkServers: SdkMcpServerStatus[] = [];
  private structured: ReturnType<typeof createStructuredOutput> | undefined;
  private running: AbortController | undefined;
  private interrupted = false;
  private initSent = false;
  private unpricedNoticed = false;
  private stopped = false;
  private readonly fallbackSessionId = randomUUID();
  /** The app's uuid of each prompt → its index in the history (`rewind_files`). */
  private readonly promptIndex = new Map<string, number>();
  private queue: Promise<void> = Promise.resolve();
  /** The exit code: that of the last prompt (1 when it ended in an error), as Claude Code. */
  code = 0;
  private readonly output;

  constructor(
    private readonly options: CliOptions,
    private readonly io: PrintIo,
    private readonly channel: ControlChannel,
  ) {
    this.output = createSdkOutput({
      sessionId: () => this.sessionId(),
      model: () => this.model(),
      facts: (model) => this.facts(model),
      includePartialMessages: options.sdk?.includePartialMessages === true,
      cacheTtl: options.cacheTtl,
    });
  }

  private sessionId(): string {
    return this.agent?.sessionId ?? this.fallbackSessionId;
  }

  private model(): string {
    return this.modelChoice?.model ?? this.agent?.model ?? "";
  }

  private facts(model: string) {
    const chosen = this.modelChoice?.model === model ? this.modelChoice.maxOutputTokens : undefined;
    return modelFacts(this.agent, model, chosen);
  }

  /** Makes the agent once, from the command line and the `initialize` request (when there is one). */
  start(init: InitializeRequest = {}): Promise<CodingAgent> {
    this.starting ??= this.create(init).then(
      (agent) => {
        this.agent = agent;
        return agent;
      },
      (error: unknown) => {
        this.startError = error instanceof Error ? error.message : String(error);
        throw error;
      },
    );
    return this.starting;
  }

  private async create(init: InitializeRequest): Promise<CodingAgent> {
    const made = await createSdkAgent(this.options, this.io, this.channel, init);
    this.sdkServers = made.sdkServers;
    this.structured = made.structured;
    // A set_permission_mode that came before the agent existed.
    if (this.mode !== undefined) made.agent.permissions.setMode(this.mode);
    return made.agent;
  }

  /** The app's `initialize`: the agent is made with what it carries, and described in the answer. */
  async initialize(requestId: string, request: ControlBody): Promise<void> {
    const init = request as InitializeRequest & ControlBody;
    if (this.starting) {
      const agent = await this.starting.catch(() => undefined);
      if (!agent) return this.channel.respondError(requestId, this.startError ?? "mitsu could not start");
      return this.channel.respond(
        requestId,
        // A second initialize (or one after the first prompt): the agent exists; its hooks are not taken in.
        initializeResponse(agent, this.model(), {
          ...(init.hooks ? { hooksApplied: false } : {}),
          manifests: [],
        }),
      );
    }
    try {
      const agent = await this.start(init);
      const manifests = Object.keys(init.sdkMcpServerManifests ?? {}).filter((n) =>
        this.sdkServers.some((s) => s.name === n && s.status === "connected"),
      );
      this.channel.respond(
        requestId,
        initializeResponse(agent, this.model(), {
          ...(init.hooks ? { hooksApplied: true } : {}),
          manifests,
        }),
      );
    } catch (error) {
      this.channel.respondError(requestId, `mitsu could not start: ${(error as Error).message}`);
    }
  }

  /** A user message: queued behind the prompts before it. */
  prompt(content: string | ContentBlock[], uuid?: string): Promise<void> {
    this.queue = this.queue.then(() => this.runPrompt(content, uuid));
    return this.queue;
  }

  private send(message: unknown): void {
    this.channel.send(message);
  }

  private sendInit(agent: CodingAgent): void {
    if (this.initSent) return;
    this.initSent = true;
    this.send(
      initMessage(agent, {
        cwd: this.io.cwd,
        sessionId: this.sessionId(),
        model: this.model(),
        permissionMode: agent.permissionMode.mode,
        mcpServers: mcpServerStatuses(agent, this.sdkServers),
      }),
    );
  }

  private failedResult(message: string) {
    return failedResult(message, this.sessionId());
  }

  /** Stops the running prompt (as `interrupt` does); the prompts still queued end at once with an error result. */
  stop(): void {
    this.stopped = true;
    if (this.running) {
      this.interrupted = true;
      this.running.abort();
    }
  }

  private async runPrompt(content: string | ContentBlock[], uuid: string | undefined): Promise<void> {
    if (this.stopped) {
      this.send(this.failedResult("mitsu was interrupted before this message ran."));
      this.code = 1;
      return;
    }
    let agent: CodingAgent;
    try {
      agent = await this.start();
    } catch (error) {
      this.send(this.failedResult(`mitsu could not start: ${(error as Error).message}`));
      this.code = 1;
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    this.interrupted = false;
    this.output.start();
    this.structured?.reset();
    const deniedBefore = agent.permissionDenials.length;
    const historyBefore = agent.history.length;
    const budget = this.options.sdk?.maxBudgetUsd;
    let stop: SdkStop | undefined;
    let usage = emptyUsage();
    let result: AgentResult | undefined;
    try {
      const prepared = await prepareSdkPrompt(agent, content, {
        cwd: this.io.cwd,
        signal: controller.signal,
      });
      if (prepared.kind !== "prompt") return await this.runCommand(agent, prepared);
      let text: string | ContentBlock[] = prepared.prompt;
      const model = prepared.model ?? this.modelChoice;
      for (let attempt = 0; ; attempt++) {
        const run = agent.prompt(text, {
          signal: controller.signal,
          liveInput: this.options.sdk?.includePartialMessages === true,
          ...(model ? { model } : {}),
        });
        for (;;) {
          const next = await run.next();
          if (next.done) {
            result = next.value;
            break;
          }
          this.emit(agent, next.value);
          if (budget !== undefined && isAssistant(next.value)) {
            const cost = this.output.cost();
            if (cost === null && !this.unpricedNoticed) {
              // Never a silent limit: a model without a known price cannot be held to a budget.
              this.unpricedNoticed = true;
              this.notice(
                `cannot hold this session to maxBudgetUsd: a model it uses has no known price (set one in ~/.mitsu/models.json)`,
                "mitsu_budget_unpriced",
              );
            }
            if (cost !== null && cost > budget && !stop) {
              stop = { kind: "budget", limitUsd: budget };
              controller.abort();
            }
          }
        }
        usage = addUsage(usage, result.usage);
        if (this.interrupted) stop ??= { kind: "interrupted" };
        const needsAnswer =
          this.structured && !this.structured.given && result.reason === "end_turn" && stop === undefined;
        if (!needsAnswer) break;
        if (attempt >= STRUCTURED_OUTPUT_RETRIES) {
          stop = { kind: "structured_output_retries" };
          break;
        }
        text = STRUCTURED_OUTPUT_REMINDER;
      }
    } catch (error) {
      this.sendInit(agent);
      this.send(this.failedResult((error as Error).message));
      this.code = 1;
      return;
    } finally {
      this.running = undefined;
    }
    if (uuid) {
      const point = agent.rewindPoints().find((p) => p.index >= historyBefore);
      if (point) this.promptIndex.set(uuid, point.index);
    }
    this.sendInit(agent);
    const line = this.output.result(
      { ...result, usage },
      {
        denials: agent.permissionDenials.slice(deniedBefore),
        ...(stop ? { stop } : {}),
        ...(this.structured?.given ? { structuredOutput: this.structured.value } : {}),
      },
    );
    this.send(line);
    this.code = line.is_error ? 1 : 0;
  }

  /** `/compact`, `/clear`, or a prompt that cannot be sent: a result without a model turn of the conversation. */
  private async runCommand(
    agent: CodingAgent,
    command: Exclude<SdkPrompt, { kind: "prompt" }>,
  ): Promise<void> {
    this.sendInit(agent);
    if (command.kind === "error") {
      this.send(this.failedResult(command.error));
      this.code = 1;
      return;
    }
    let usage = emptyUsage();
    if (command.kind === "compact") {
      try {
        const done = await agent.compact(command.focus || undefined);
        usage = done.usage;
        this.output.record(agent.model, done.usage);
        this.send({
          type: "system",
          subtype: "compact_boundary",
          compact_metadata: { trigger: "manual", pre_tokens: done.tokensBefore },
          uuid: randomUUID(),
          session_id: this.sessionId(),
        });
      } catch (error) {
        this.send(this.failedResult((error as Error).message));
        this.code = 1;
        return;
      }
    } else {
      await agent.clear();
    }
    this.send(this.output.result({ reason: "end_turn", messages: [], usage }, { denials: [] }));
    this.code = 0;
  }

  private emit(agent: CodingAgent, event: AgentEvent): void {
    // The init line comes once the session has its id: at the first model call.
    if (event.type === "turn-start") this.sendInit(agent);
    for (const line of this.output.lines(event)) {
      if (!this.initSent) this.sendInit(agent);
      this.send(line);
    }
  }

  /** A warning for the app, as Claude Code's `system`/`informational` message (and on stderr). */
  notice(text: string, tag = "mitsu_input_error"): void {
    this.io.stderr.write(`mitsu: ${text}\n`);
    this.send({
      type: "system",
      subtype: "informational",
      level: "warning",
      content: `mitsu ${text}`,
      tag,
      uuid: randomUUID(),
      session_id: this.sessionId(),
    });
  }

  private setMode(mode: PermissionMode): void {
    this.mode = mode;
    this.agent?.permissions.setMode(mode);
  }

  /** Answers a control request of the app's (never throws; every request gets an answer). */
  async control(requestId: string, request: ControlBody): Promise<void> {
    const { channel } = this;
    if (!SUPPORTED.includes(request.subtype)) {
      return channel.respondError(
        requestId,
        `The control request ${JSON.stringify(request.subtype)} is not supported by mitsu (it answers ${SUPPORTED.join(", ")}).`,
      );
    }
    try {
      if (request.subtype === "initialize") return await this.initialize(requestId, request);
      if (request.subtype === "interrupt") {
        if (this.running) {
          this.interrupted = true;
          this.running.abort();
        }
        return channel.respond(requestId, { still_queued: [] });
      }
      if (request.subtype === "mcp_message") {
        // A message an in-process server sends on its own; answered, never left waiting.
        const { answerServerMessage } = await import("./sdk-mcp-bridge.js");
        if (typeof request.server_name === "string")
          answerServerMessage(channel, request.server_name, request.message);
        return channel.respond(requestId, { mcp_response: { jsonrpc: "2.0", result: {}, id: 0 } });
      }
      const agent = await this.start();
      switch (request.subtype) {
        case "set_permission_mode": {
          const mode = request.mode;
          if (typeof mode !== "string" || !(PERMISSION_MODES as readonly string[]).includes(mode))
            return channel.respondError(
              requestId,
              `The permission mode ${JSON.stringify(mode)} is not supported by mitsu (it has ${PERMISSION_MODES.join(", ")}).`,
            );
          this.setMode(mode as PermissionMode);
          return channel.respond(requestId);
        }
        case "set_model": {
          const model = request.model;
          this.modelChoice =
            typeof model === "string" && model !== "" && model !== "default"
              ? agent.modelFor(model)
              : undefined;
          return channel.respond(requestId);
        }
        case "set_max_thinking_tokens": {
          const n = request.max_thinking_tokens;
          agent.setThinking(typeof n === "number" && n > 0 ? Math.max(1024, Math.floor(n)) : undefined);
          return channel.respond(requestId);
        }
        case "mcp_status":
          return channel.respond(requestId, { mcpServers: mcpServerStatuses(agent, this.sdkServers) });
        case "get_context_usage":
          return channel.respond(requestId, contextUsage(agent, this.model()));
        case "rewind_files":
          return channel.respond(requestId, this.rewindFiles(agent, request));
      }
    } catch (error) {
      channel.respondError(requestId, (error as Error).message);
    }
  }

  /**
   * `rewind_files`: the files Write and Edit changed since that prompt get their content from before it back.
   * mitsu's checkpoints belong to its `/rewind`, which also takes the conversation back to before that prompt.
   */
  private rewindFiles(agent: CodingAgent, request: ControlBody): Record<string, unknown> {
    const id = request.user_message_id;
    const index = typeof id === "string" ? this.promptIndex.get(id) : undefined;
    if (index === undefined) {
      return {
        canRewind: false,
        error: `No prompt of this session has the uuid ${JSON.stringify(id)} (give each user message a uuid).`,
      };
    }
    if (this.running) {
      return {
        canRewind: false,
        error: "A prompt is running; rewind after it.",
      };
    }
    if (request.dry_run === true) return { canRewind: true };
    const done = agent.rewind(index, { restoreFiles: true });
    for (const [uuid, at] of this.promptIndex) if (at >= index) this.promptIndex.delete(uuid);
    return {
      canRewind: true,
      filesChanged: done.restored,
      ...(done.notRestored.length > 0
        ? { error: done.notRestored.map((n) => `${n.path}: ${n.why}`).join("; ") }
        : {}),
    };
  }

  /** Ends the session: stops the agent (its background commands, its MCP servers). */
  async close(): Promise<void> {
    this.running?.abort();
    const agent = await this.starting?.catch(() => undefined);
    await agent?.close();
  }
}

function isAssistant(event: AgentEvent): boolean {
  return event.type === "message" && event.message.role === "assistant";
}
