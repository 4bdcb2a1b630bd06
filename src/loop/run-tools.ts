import type { ToolResultBlock, ToolUseBlock } from "../messages/index.js";
import type { AgentEvent, AgentPath, AgentResult } from "./agent-event.js";
import { AsyncQueue } from "./async-queue.js";
import type { Journal } from "./journal.js";
import { type CanUseTool, USER_REJECTED_MESSAGE, USER_STOPPED_MESSAGE } from "./permission.js";
import { SignalFanOut } from "./signal-fan-out.js";
import type { Spawn, Spawner } from "./spawn.js";
import type { Tool, ToolContext, ToolOutput } from "./tool.js";
import type { ToolState } from "./tool-state.js";
import { validateInput } from "./validate-input.js";

/** The text of the result of a call that an abort stopped, or that never started because of one. */
export const INTERRUPTED_MESSAGE = "The tool call was interrupted by the user.";

export interface RunToolsOptions {
  /** The tool_use blocks of one assistant message, in call order. */
  calls: readonly ToolUseBlock[];
  tools: readonly Tool<never>[];
  /** The turn that asked for the calls; copied onto the events. */
  turn: number;
  signal: AbortSignal;
  canUseTool?: CanUseTool;
  /** `ToolContext.state`, shared by every call of the run. */
  state: ToolState;
  /** Copied onto the events and `ToolContext.agentPath`; default `[]`. */
  agentPath?: AgentPath;
  /** Wraps each call (see `Journal.tool`); default: straight through. */
  journal?: Journal;
  /** Gives the tools `ToolContext.spawn`; see `Spawner`. */
  spawn?: Spawner;
  /**
   * Session-log hook: awaited right before a tool's `run` starts (after validation, `check` and the
   * permission question), so a log knows the call may have had effects. If it throws, the tool does not run
   * and the call's result is an `is_error` naming the failure.
   */
  onToolStart?: (block: ToolUseBlock) => void | Promise<void>;
  /**
   * Session-log hook: called with each call's result as soon as it is settled (also an interrupted or
   * refused one), in completion order, before the turn's user message is assembled. A throw is ignored here:
   * the same result reaches `onMessage` with the turn's message, which reports the failure.
   */
  onToolResult?: (block: ToolUseBlock, result: ToolResultBlock) => void | Promise<void>;
  /**
   * Called once when the user stopped the turn: `canUseTool` answered a deny with `interrupt`, or a sub-agent
   * this turn started ended with reason `denied` (the user refused one of its calls). The calls not started by
   * then get `USER_STOPPED_MESSAGE`; the caller makes no further model call.
   */
  onStopped?: () => void;
}

/** An `is_error` result; the API rejects an error result without content, so there is always some text. */
export function errorResult(toolUseId: string, message: string): ToolResultBlock {
  return {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: message || "The tool call failed.",
    is_error: true,
  };
}

function outputToResult(toolUseId: string, tool: Tool<never>, output: ToolOutput): ToolResultBlock {
  if (typeof output === "string" || Array.isArray(output)) {
    return { type: "tool_result", tool_use_id: toolUseId, content: output };
  }
  if (output !== null && typeof output === "object" && "content" in output) {
    const { content, isError } = output;
    if (typeof content === "string" || Array.isArray(content)) {
      if (!isError) return { type: "tool_result", tool_use_id: toolUseId, content };
      if (content.length > 0) return { type: "tool_result", tool_use_id: toolUseId, content, is_error: true };
      return errorResult(toolUseId, `${tool.name} failed without a message.`);
    }
  }
  return errorResult(
    toolUseId,
    `${tool.name} returned a value that is not a tool output (a bug in the tool).`,
  );
}

/**
 * The result text for a call whose input cannot be used: `{"INVALID_JSON": raw}`, the exact text received, so
 * the model sees what it wrote. When the adapter knows why the call is malformed beyond its JSON (the XML-tag
 * protocol's `meta.protocolError`: an unknown attribute, a tag never closed), the reason goes beside it as
 * `error`, since the raw text alone would not tell the model what to fix.
 */
export function invalidInputMessage(block: ToolUseBlock): string {
  const reason = block.input_status === "invalid" ? block.meta?.protocolError : undefined;
  const raw = block.raw_input ?? "";
  return JSON.stringify(
    typeof reason === "string" ? { INVALID_JSON: raw, error: reason } : { INVALID_JSON: raw },
  );
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/**
 * Splits the calls into batches that run one after another, in call order: consecutive calls of ordinary
 * tools form one batch and run concurrently; a call of a `sequential` tool is a batch of its own. So
 * `[Read a, Read b, Bash, Read c]` runs `{a, b}`, then `Bash` alone, then `{c}`: a sequential tool never
 * overlaps another call, and every call still sees the effects of the calls the model wrote before it.
 */
export function batchCalls(
  calls: readonly ToolUseBlock[],
  tools: ReadonlyMap<string, Tool<never>>,
): number[][] {
  const batches: number[][] = [];
  let open: number[] | undefined;
  calls.forEach((call, i) => {
    if (tools.get(call.name)?.sequential === true) {
      batches.push([i]);
      open = undefined;
    } else if (open) {
      open.push(i);
    } else {
      open = [i];
      batches.push(open);
    }
  });
  return batches;
}

/**
 * A promise that resolves when `signal` aborts, with ONE listener for the whole turn however many calls
 * race against it (an AbortSignal warns of a leak past 10 listeners); `dispose` removes it.
 */
function watchAbort(signal: AbortSignal): { aborted: Promise<undefined>; dispose: () => void } {
  let onAbort = () => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
  });
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return { aborted, dispose: () => signal.removeEventListener("abort", onAbort) };
}

/**
 * Runs the tool calls of one turn and returns their results, one per call, in call order.
 *
 * Each call: unparseable or cut input (`input_status`) → `is_error` result `{"INVALID_JSON": raw}` (with the
 * adapter's `error` reason when it gave one, see `invalidInputMessage`), the tool
 * does not run; unknown tool → `is_error` naming the available tools; input checked against `inputSchema`;
 * `canUseTool` asked (a deny is the result, the tool never runs; an allow may replace the input, which is
 * checked again); then `run`. A throw becomes an `is_error` result with its message. Never throws.
 *
 * Concurrency: see `batchCalls`. On abort, every call not finished gets the interrupted result at once
 * (a running tool sees the abort through `ToolContext.signal`; its late result is dropped).
 *
 * Yields `tool-call-start` and `tool-call-end` for every call, also for calls that never run, so a UI
 * can always close what it opened; between them, a `tool-progress` event for each non-empty text the call
 * reports through `ToolContext.progress` (ignored once its result is in).
 */
export async function* runTools(options: RunToolsOptions): AsyncGenerator<AgentEvent, ToolResultBlock[]> {
  const { calls, turn, signal, canUseTool, state, journal, onToolStart, onToolResult } = options;
  const agentPath = options.agentPath ?? [];
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const results: ToolResultBlock[] = new Array(calls.length);
  const queue = new AsyncQueue<AgentEvent>();
  // The user refused a call and stopped the turn: questions still waiting are withdrawn, nothing more starts, and
  // sub-agents stop (they would go on asking and calling the model). A command the user approved and that is
  // already running finishes: killing it halfway could leave a mess nobody asked for.
  const halt = new AbortController();
  const stop = () => {
    if (halt.signal.aborted) return;
    halt.abort();
    options.onStopped?.();
  };
  const turnSignal = AbortSignal.any([signal, halt.signal]);
  // Each call gets signals of its own, fed by one listener each on the shared ones (see SignalFanOut).
  const runSignals = new SignalFanOut(signal);
  const askSignals = new SignalFanOut(turnSignal);

  /** `ToolContext.spawn` for one call: the child's events go into this turn's queue while the call is open. */
  const spawnFor = (spawner: Spawner, block: ToolUseBlock, isOpen: () => boolean): Spawn => {
    return async (request) => {
      const own = askSignals.child();
      const child = spawner(request, { agentPath: [...agentPath, block.id], signal: own.signal });
      let result: AgentResult;
      try {
        for (;;) {
          const next = await child.next();
          if (next.done) {
            result = next.value;
            break;
          }
          if (isOpen()) queue.push(next.value);
        }
      } finally {
        own.release();
      }
      // The user refused one of the sub-agent's calls: this turn stops with it.
      if (result.reason === "denied") stop();
      return result;
    };
  };

  const execute = async (
    block: ToolUseBlock,
    progress: (text: string) => void,
    isOpen: () => boolean,
  ): Promise<ToolResultBlock> => {
    const id = block.id;
    if (halt.signal.aborted) return errorResult(id, USER_STOPPED_MESSAGE);
    if (block.input_status !== undefined) return errorResult(id, invalidInputMessage(block));
    const tool = tools.get(block.name);
    if (!tool) {
      const names = [...tools.keys()].join(", ") || "(none)";
      return errorResult(id, `Unknown tool: ${block.name}. Available tools: ${names}`);
    }
    const invalid = validateInput(tool, block.input);
    if (invalid) return errorResult(id, invalid);
    const own = runSignals.child();
    try {
      return await executeWith(block, tool, block.input, own.signal, progress, isOpen);
    } finally {
      own.release();
    }
  };

  const executeWith = async (
    block: ToolUseBlock,
    tool: Tool<never>,
    validInput: Record<string, unknown>,
    callSignal: AbortSignal,
    progress: (text: string) => void,
    isOpen: () => boolean,
  ): Promise<ToolResultBlock> => {
    const id = block.id;
    let input = validInput;
    const toolContext: ToolContext = { signal: callSignal, toolUseId: id, state, agentPath, progress };
    if (options.spawn) {
      toolContext.spawn = spawnFor(options.spawn, block, isOpen);
      toolContext.spawner = options.spawn;
    }
    if (tool.check) {
      try {
        const check = tool.check as (input: Record<string, unknown>, context: ToolContext) => Promise<void>;
        await check.call(tool, input, toolContext);
      } catch (error) {
        return errorResult(id, errorMessage(error));
      }
    }
    if (canUseTool) {
      let decision: Awaited<ReturnType<CanUseTool>>;
      const ask = askSignals.child();
      try {
        decision = await canUseTool(tool, input, { toolUseId: id, signal: ask.signal, state, agentPath });
      } catch (error) {
        return errorResult(id, `The permission check for ${tool.name} failed: ${errorMessage(error)}`);
      } finally {
        ask.release();
      }
      if (decision.behavior === "deny") {
        if (decision.interrupt === true) {
          stop();
          return errorResult(id, decision.message || USER_STOPPED_MESSAGE);
        }
        // A question withdrawn because the user stopped the turn at another call.
        if (halt.signal.aborted) return errorResult(id, USER_STOPPED_MESSAGE);
        return errorResult(id, decision.message || `${tool.name} was denied.`);
      }
      if (decision.input) {
        input = decision.input;
        const edited = validateInput(tool, input);
        if (edited) return errorResult(id, edited);
      }
    }
    if (signal.aborted) return errorResult(id, INTERRUPTED_MESSAGE);
    if (halt.signal.aborted) return errorResult(id, USER_STOPPED_MESSAGE);
    if (onToolStart) {
      try {
        await onToolStart(block);
      } catch (error) {
        return errorResult(id, `Not run: the session log could not record the call: ${errorMessage(error)}`);
      }
    }
    if (halt.signal.aborted) return errorResult(id, USER_STOPPED_MESSAGE);
    try {
      // `Tool<never>` holds a tool of any input type; the schema check above is what makes this call sound.
      const run = tool.run as (input: Record<string, unknown>, context: ToolContext) => Promise<ToolOutput>;
      return outputToResult(id, tool, await run.call(tool, input, toolContext));
    } catch (error) {
      return errorResult(id, errorMessage(error));
    }
  };

  const runOne = async (index: number): Promise<void> => {
    const block = calls[index] as ToolUseBlock;
    queue.push({ type: "tool-call-start", turn, agentPath, block });
    // Reports count only while the call is open: a tool still running after an abort (its result dropped)
    // must not add events after its tool-call-end, nor push into the queue once it is closed.
    let open = true;
    const progress = (text: string) => {
      if (open && typeof text === "string" && text !== "") {
        queue.push({ type: "tool-progress", turn, agentPath, toolUseId: block.id, text });
      }
    };
    const isOpen = () => open;
    const started = performance.now();
    const call = () =>
      execute(block, progress, isOpen).catch((error: unknown) => errorResult(block.id, errorMessage(error)));
    const journaled = () =>
      journal
        ? journal
            .tool({ turn, block, agentPath }, call)
            .catch((error: unknown) =>
              errorResult(block.id, `The tool journal failed: ${errorMessage(error)}`),
            )
        : call();
    const settled = signal.aborted ? undefined : await Promise.race([journaled(), abort.aborted]);
    open = false;
    const result = settled ?? errorResult(block.id, INTERRUPTED_MESSAGE);
    // A journal replaying a recorded turn hands back the refusal without asking again: it stops the turn the same.
    if (result.is_error === true && result.content === USER_REJECTED_MESSAGE) stop();
    results[index] = result;
    if (onToolResult) {
      try {
        await onToolResult(block, result);
      } catch {
        // Reported by onMessage, which receives the same result with the turn's message.
      }
    }
    queue.push({
      type: "tool-call-end",
      turn,
      agentPath,
      block,
      result,
      durationMs: performance.now() - started,
    });
  };

  // Through the fan-out too: the turn's signal carries one listener for all of this.
  const abort = watchAbort(runSignals.child().signal);
  const work = (async () => {
    for (const batch of batchCalls(calls, tools)) await Promise.all(batch.map(runOne));
  })().finally(() => {
    abort.dispose();
    runSignals.dispose();
    askSignals.dispose();
    queue.close();
  });

  yield* queue;
  await work;
  return results;
}
