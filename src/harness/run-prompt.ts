import type { AgentEvent, AgentPath, AgentResult } from "../loop/agent-event.js";
import { type RunAgentOptions, runAgent } from "../loop/run-agent.js";
import { addUsage, type ContentBlock, emptyUsage, type Message, type TextBlock } from "../messages/index.js";
import { clearSkillModel, skillModel } from "../skills/index.js";
import { appendPrompt } from "./append-prompt.js";
import type { PromptOptions } from "./coding-agent.js";
import type { HarnessState } from "./harness-state.js";
import type { ModelChoice } from "./model-choice.js";
import { sessionLogHooks } from "./session-log-hooks.js";

/** How often a Stop hook may send the agent on before its word is no longer taken. */
const MAX_STOP_CONTINUATIONS = 5;
const TOP: AgentPath = [];

const warning = (code: string, message: string): AgentEvent => ({
  type: "warning",
  code,
  message,
  turn: 0,
  agentPath: TOP,
});

/**
 * One user message through the loop (`CodingAgent.prompt`): the UserPromptSubmit hooks and the capabilities'
 * per-prompt work first, then the run, then the Stop hooks, which may send the agent on. The hooks' notices are
 * yielded as `warning` events between the run's events.
 */
export async function* runPrompt(
  state: HarnessState,
  text: string | ContentBlock[],
  promptOptions: PromptOptions,
): AsyncGenerator<AgentEvent, AgentResult> {
  if (state.closed) throw new Error("This agent is closed.");
  if (state.running) throw new Error("A prompt is already running on this agent; wait for its end.");
  state.running = true;
  state.notices.inPrompt = true;
  // A hook's `continue: false` stops the run as an interrupt does.
  const stopper = new AbortController();
  let stopReason: string | undefined;
  state.stopRun = (reason) => {
    stopReason ??= reason;
    stopper.abort();
  };
  const signal = promptOptions.signal
    ? AbortSignal.any([promptOptions.signal, stopper.signal])
    : stopper.signal;
  try {
    const started = yield* beforePrompt(state, text, signal);
    if (!started) {
      const result: AgentResult = { reason: "end_turn", messages: [...state.history], usage: emptyUsage() };
      yield { type: "agent-end", ...result, agentPath: TOP };
      return result;
    }
    let messages = started.messages;
    // A skill's model lasts for the run that loaded it, not for the prompts after.
    clearSkillModel(state.toolState);
    let earlierUsage = emptyUsage();
    for (let continuation = 0; ; continuation++) {
      const { result, endEvent } = yield* forwardRun(
        state,
        runOptionsFor(state, messages, promptOptions, signal),
      );
      yield* notices(state);
      if (stopReason !== undefined) {
        yield warning("hook-stopped", `A hook stopped the agent${stopReason ? `: ${stopReason}` : "."}`);
      }
      const stoppable = result.reason === "end_turn" && stopReason === undefined && !signal.aborted;
      if (stoppable && state.hookRunner.has("Stop") && continuation < MAX_STOP_CONTINUATIONS) {
        const stop = await state.hookRunner.run("Stop", { stop_hook_active: continuation > 0 }, { signal });
        yield* notices(state);
        if (stop.blocked !== undefined && stop.stop === undefined) {
          // The hook keeps the agent going: its reason is the next instruction.
          earlierUsage = addUsage(earlierUsage, result.usage);
          messages = appendPrompt(state.history, `Stop hook feedback:\n${stop.blocked}`);
          continue;
        }
      }
      // The usage of the runs a Stop hook asked for counts in the prompt's result.
      const total: AgentResult = { ...result, usage: addUsage(earlierUsage, result.usage) };
      if (endEvent) yield { ...endEvent, usage: total.usage } as AgentEvent;
      return total;
    }
  } finally {
    clearSkillModel(state.toolState);
    state.running = false;
    state.checkpoints.promptIndex = undefined;
    state.notices.inPrompt = false;
    state.stopRun = undefined;
    state.notices.flush();
  }
}

function* notices(state: HarnessState): Generator<AgentEvent> {
  for (const notice of state.notices.pending.splice(0)) {
    yield warning(`hook-${notice.kind}`, notice.message);
  }
}

/**
 * SessionStart (once), UserPromptSubmit and the capabilities' per-prompt work; the session file with the first
 * prompt; the capabilities' changed tools. Returns the messages to run, or undefined when a hook blocked the
 * prompt (it then never reaches the model nor the transcript; the reason is for the user).
 */
async function* beforePrompt(
  state: HarnessState,
  text: string | ContentBlock[],
  signal: AbortSignal,
): AsyncGenerator<AgentEvent, { messages: Message[] } | undefined> {
  const { hookRunner } = state;
  const context: string[] = state.setupContext.splice(0);
  if (state.sessionSource) {
    const source = state.sessionSource;
    state.sessionSource = undefined;
    context.push(...(await hookRunner.run("SessionStart", { source }, { signal })).context);
  }
  // A prompt of blocks (an image with its text) is told to the hook by its text.
  const promptText =
    typeof text === "string"
      ? text
      : text.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  const submitted = await hookRunner.run("UserPromptSubmit", { prompt: promptText }, { signal });
  yield* notices(state);
  if (submitted.blocked !== undefined || submitted.stop !== undefined) {
    const why = submitted.blocked ?? submitted.stop ?? "";
    yield warning("hook-blocked", `A UserPromptSubmit hook blocked this prompt${why ? `: ${why}` : "."}`);
    return undefined;
  }
  context.push(...submitted.context, ...(await state.capabilities.beforePrompt({ text, signal })));
  // A new session file is made with the first prompt: a command that sends nothing leaves no file.
  if (!state.log && state.logging) state.log = state.newLog();
  // A capability's changed tool list (an MCP server's) takes effect here, between prompts, never inside a run.
  const changed = state.applyToolChanges();
  if (changed) yield warning("mcp-tools-changed", `${changed}: the new tools apply from this message`);
  let messages = appendPrompt(state.history, text);
  state.checkpoints.promptIndex = messages.length - 1;
  if (context.length > 0) {
    const last = messages[messages.length - 1] as Message;
    const extra: TextBlock[] = context.map((c) => ({
      type: "text",
      text: `<system-reminder>\nContext from hooks:\n${c}\n</system-reminder>`,
    }));
    messages = [...messages.slice(0, -1), { ...last, content: [...last.content, ...extra] } as Message];
  }
  return { messages };
}

/**
 * The loop's options for one run of this prompt, and the warnings (a skill's unusable model) its model choice
 * raises as it runs: yielded between its events.
 */
function runOptionsFor(
  state: HarnessState,
  messages: Message[],
  promptOptions: PromptOptions,
  signal: AbortSignal,
): { runOptions: RunAgentOptions; warnings: AgentEvent[] } {
  const { options, models } = state;
  const { resolved } = models;
  const chosen = promptOptions.model;
  const skillModels = new Map<string, ModelChoice | undefined>();
  const warnings: AgentEvent[] = [];
  const thinking = state.thinkingBudget;
  const runOptions: RunAgentOptions = {
    provider: chosen?.provider ?? resolved.provider,
    model: chosen?.model ?? resolved.model,
    system: state.context.system,
    tools: state.runTools,
    messages,
    maxTurns: promptOptions.maxTurns ?? state.maxTurns,
    maxTokens: state.maxTokensFor(
      promptOptions.maxTokens ??
        (chosen && options.maxTokens === undefined
          ? Math.min(chosen.maxOutputTokens, 32_000)
          : state.defaultMaxTokens),
    ),
    ...(thinking !== undefined ? { thinkingBudget: thinking } : {}),
    selectModel: (toolState) => {
      const spec = skillModel(toolState);
      if (spec === undefined) return undefined;
      if (!skillModels.has(spec)) {
        try {
          skillModels.set(spec, models.modelFor(spec));
        } catch (error) {
          skillModels.set(spec, undefined);
          warnings.push({
            type: "warning",
            turn: 0,
            agentPath: [],
            code: "skill_model",
            message: `The skill's model ${JSON.stringify(spec)} cannot be used (${(error as Error).message}); the session's model goes on.`,
          });
        }
      }
      return skillModels.get(spec);
    },
    canUseTool: state.canUseTool,
    toolState: state.toolState,
    spawn: state.spawn,
    contextWindow: resolved.entry.contextWindow,
    ...(state.requestTokens ? { requestTokens: state.requestTokens } : {}),
    prepareRequest: (request, info) => {
      const epoch = state.pendingEpoch;
      state.pendingEpoch = undefined;
      return state.context.prepareRequest(
        request,
        epoch && !info.newEpoch ? { ...info, newEpoch: epoch } : info,
      );
    },
    ...(state.log ? sessionLogHooks(state.log) : {}),
    ...(options.journal ? { journal: options.journal } : {}),
    ...(state.replaceHistory ? { replaceHistory: state.replaceHistory } : {}),
    signal,
    ...(promptOptions.liveInput !== undefined ? { liveInput: promptOptions.liveInput } : {}),
  };
  return { runOptions, warnings };
}

/**
 * Runs the loop and yields its events, counting each call's usage and the context's fill as they pass; the
 * top-level `agent-end` is held back (the Stop hooks have their say first) and returned with the result.
 */
async function* forwardRun(
  state: HarnessState,
  { runOptions, warnings }: { runOptions: RunAgentOptions; warnings: AgentEvent[] },
): AsyncGenerator<AgentEvent, { result: AgentResult; endEvent: AgentEvent | undefined }> {
  const run = runAgent(runOptions);
  let endEvent: AgentEvent | undefined;
  for (;;) {
    const next = await run.next();
    yield* warnings.splice(0);
    if (next.done) {
      state.history = next.value.messages;
      return { result: next.value, endEvent };
    }
    const event = next.value;
    const top = event.agentPath.length === 0;
    if (event.type === "history-replaced") {
      if (top) {
        state.checkpoints.current()?.clear();
        state.checkpoints.promptIndex = undefined;
      }
      if (event.usage) state.meter.count(event.usage, event.agentPath);
      if (top) state.used = event.tokensAfter;
    }
    if (event.type === "message" && event.message.role === "assistant") {
      const usage = event.message.usage;
      if (usage) {
        state.meter.count({ ...emptyUsage(), ...usage }, event.agentPath);
        if (top) {
          state.meter.last = usage;
          state.used = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
        }
      }
    }
    yield* notices(state);
    if (event.type === "agent-end" && top) endEvent = event;
    else yield event;
  }
}
