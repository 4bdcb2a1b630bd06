import type { ObjectContext } from "@restatedev/restate-sdk";
import { CancelledError } from "@restatedev/restate-sdk";
import type { Journal, ToolCallInfo } from "../loop/journal.js";
import type { PermissionDecision } from "../loop/permission.js";
import type { Tool } from "../loop/tool.js";
import type { ToolState, ToolStateKey } from "../loop/tool-state.js";
import { validateInput } from "../loop/validate-input.js";
import type { ToolResultBlock } from "../messages/index.js";
import { askPerson, type PendingAsks } from "./ask-person.js";
import type { DurableDecision, DurablePermissions } from "./durable-agent-setup.js";
import { type InFlightSteps, runStep } from "./in-flight-steps.js";
import type { StepMarks } from "./step-marks.js";
import { toolStateDelta } from "./tool-state-delta.js";

export interface RestateJournalOptions {
  ctx: ObjectContext;
  tools: readonly Tool<never>[];
  permissions: DurablePermissions | undefined;
  /** Filled here before each top-level tool call runs; the run's `canUseTool` reads it. */
  decisions: Map<string, PermissionDecision>;
  pending: PendingAsks;
  state: ToolState;
  askTimeoutMs: number;
  /** The number of the run's first turn this journal records (steps are named `model turn <n>` by the run's count). */
  turn?: number;
  /**
   * Tools whose calls start sub-agents through a durable call (`Task`). Such a call runs outside `ctx.run` (a
   * durable call cannot be made inside one); its result is then recorded as a step of its own, so that a replay
   * returns exactly what was first returned.
   */
  spawnTools?: readonly string[];
  /**
   * Tool-state slots recorded with each tool step: a replayed step (its tool not run again) loads them, so that
   * what the tool would have left in the state (the files it Read) is there for the calls after it.
   */
  toolStateKeys?: readonly ToolStateKey<never>[];
  /** Where a tool call's start is marked, outside the journal (see `StepMarks`); without it none is. */
  marks?: StepMarks;
  /** Called when the invocation is cancelled (`restate invocations cancel`, `mitsu remote cancel`): abort the run. */
  onCancelled?: () => void;
  /**
   * The worker's running steps (see `InFlightSteps`): a model call still running here for an earlier attempt of
   * the invocation is waited for, not sent again.
   */
  inFlight?: InFlightSteps;
}

/**
 * The loop's journal on Restate: each model call and each tool call of the top-level agent is one `ctx.run`
 * step, so a run resumed on another worker gets the recorded answer instead of calling again. A tool call's
 * permission is decided in its step; a decision to ask is recorded as the step's result, and the person is asked
 * outside it (waiting is an awakeable, which a `ctx.run` step cannot hold), the call then run as a step of its
 * own. A spawning call (Task) runs outside a step, its permission a step before it. A sub-agent's calls pass
 * straight through: the Task call that runs the sub-agent is itself one step.
 */
export function restateJournal(options: RestateJournalOptions): Journal {
  const { ctx, decisions } = options;
  // A cancelled invocation's next step throws CancelledError once; the run must then end (its transcript
  // answered), not go on with the next call.
  const cancellable = <T>(step: Promise<T>): Promise<T> =>
    step.catch((error: unknown) => {
      if (error instanceof CancelledError) options.onCancelled?.();
      throw error;
    });
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  return {
    // A model step's call, if it still runs here for an earlier attempt, is waited for (`runStep`). Not a tool
    // step's: another process may have run that call again meanwhile, which only its mark can tell (the note).
    model: (info, call) =>
      info.agentPath.length > 0
        ? call()
        : cancellable(
            runStep(ctx, options.inFlight, `model turn ${(options.turn ?? 1) + info.turn - 1}`, call),
          ),
    tool: (info, call) => (info.agentPath.length > 0 ? call() : cancellable(tool(info, call))),
  };

  async function tool(info: ToolCallInfo, call: () => Promise<ToolResultBlock>): Promise<ToolResultBlock> {
    const { block } = info;
    const known = tools.get(block.name);
    const checked =
      known && block.input_status === undefined && validateInput(known, block.input) === undefined
        ? known
        : undefined;
    const permissions = checked ? options.permissions : undefined;
    const decide = async () =>
      (permissions as DurablePermissions)(checked as Tool<never>, block.input, {
        toolUseId: block.id,
        agentPath: [],
        state: options.state,
      });
    const answer = async (decided: DurableDecision) => {
      decisions.set(
        block.id,
        decided.behavior === "ask"
          ? await askPerson(ctx, options.pending, block, decided, options.askTimeoutMs)
          : decided,
      );
    };
    const spawns = options.spawnTools?.includes(block.name) === true;
    if (checked && !permissions) decisions.set(block.id, { behavior: "allow" });
    // A spawning call runs outside a step (a durable call cannot be made in one): its permission is a step first.
    if (permissions && spawns) await answer(await ctx.run(`permission ${block.id}`, decide));
    const keys = options.toolStateKeys ?? [];
    const name = `tool ${block.name} ${block.id}`;
    /** What a tool step records: the result (and the tool state's change), or a question to ask first. */
    type Recorded = {
      result: ToolResultBlock;
      changes?: Record<string, unknown>;
      state?: Record<string, unknown>;
    };
    let ran = false;
    let before: Record<string, unknown> = {};
    // The step records what the call changed in the tool state, not the whole state (every file Read so far).
    const record = (result: ToolResultBlock): Recorded => {
      ran = true;
      return keys.length > 0
        ? { result, changes: toolStateDelta(before, options.state.snapshot()) }
        : { result };
    };
    const run = async (again: boolean): Promise<Recorded> => {
      before = keys.length > 0 ? options.state.snapshot() : {};
      const result = await call();
      return record(again ? mayHaveRun(result, known) : result);
    };
    // A call whose start mark is there already was started by an earlier attempt, whose worker stopped before the
    // step's result was journaled: it may have partly run.
    const marked = async () => (await options.marks?.start(ctx.key, block.id)) === true;
    let recorded: Recorded | { ask: DurableDecision & { behavior: "ask" } };
    if (spawns) {
      const result = await call();
      recorded = await ctx.run(name, async () => record(result));
    } else if (permissions) {
      // One step decides and runs the call (one round trip to the server, not two); a call to ask about is
      // recorded as such, asked about, and run as a step of its own once answered.
      recorded = await ctx.run(name, async () => {
        const decided = await decide();
        if (decided.behavior === "ask") return { ask: decided };
        decisions.set(block.id, decided);
        return run(await marked());
      });
      if ("ask" in recorded) {
        await answer(recorded.ask);
        recorded = await ctx.run(`${name} answered`, async () => run(await marked()));
      }
    } else recorded = await ctx.run(name, async () => run(await marked()));
    if ("ask" in recorded) throw new Error("mitsu bug: a tool step recorded a question twice");
    // `state`: a step journaled before changes were (the whole state then); a record without either (no slots).
    if (!ran && keys.length > 0) options.state.restore(recorded.changes ?? recorded.state ?? {}, keys);
    return recorded.result;
  }
}

/**
 * A call's result when an earlier attempt of it was cut off (its worker stopped mid-call): the model is told that
 * the earlier attempt may have partly run, as a local session resumed after kill -9 says "state unknown"; a tool
 * that changes things is to be checked (the files Read again) before the model relies on its effects.
 */
export function mayHaveRun(result: ToolResultBlock, tool: Tool<never> | undefined): ToolResultBlock {
  const check = tool?.readOnly
    ? ""
    : " Check its effects before relying on them (Read a file it changes again before editing it).";
  const note = `Note: an earlier attempt of this call was cut off when its worker stopped and may have partly run (state unknown); this is its result when run again.${check}`;
  const content =
    typeof result.content === "string" ? [{ type: "text" as const, text: result.content }] : result.content;
  return { ...result, content: [{ type: "text", text: note }, ...content] };
}
