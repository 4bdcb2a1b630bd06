import { type ObjectContext, TimeoutError } from "@restatedev/restate-sdk";
import type { PermissionDecision } from "../loop/permission.js";
import type { ToolUseBlock } from "../messages/index.js";
import type { AskAnswer, PendingAsk } from "./pending-ask.js";
import { STATE, StateList } from "./session-state.js";

/** The questions of one invocation that wait for a person, in the state (`STATE.pending`) for `approve` / `deny`. */
export class PendingAsks extends StateList<PendingAsk> {
  constructor(
    ctx: ObjectContext,
    /** Told when a question is added (the session's followers are woken). */
    private readonly onAdd: () => void = () => {},
  ) {
    super(ctx, STATE.pending);
  }

  override add(ask: PendingAsk): void {
    super.add(ask);
    this.onAdd();
  }

  remove(toolUseId: string): void {
    this.removeWhere((ask) => ask.toolUseId === toolUseId);
  }
}

/**
 * Asks a person about a call: an awakeable the session suspends on (no worker is held while it waits), listed
 * in the state so that `approve` / `deny` find it. No answer by `timeoutMs` denies the call.
 */
export async function askPerson(
  ctx: ObjectContext,
  pending: PendingAsks,
  block: ToolUseBlock,
  question: { display: string; reason: string },
  timeoutMs: number,
): Promise<PermissionDecision> {
  const awakeable = ctx.awakeable<AskAnswer>();
  const now = await ctx.date.now();
  pending.add({
    session: ctx.key,
    toolUseId: block.id,
    toolName: block.name,
    input: block.input,
    display: question.display,
    reason: question.reason,
    deadline: now + timeoutMs,
    awakeableId: awakeable.id,
  });
  let answer: AskAnswer;
  try {
    answer = await awakeable.promise.orTimeout(timeoutMs);
  } catch (error) {
    if (!(error instanceof TimeoutError)) throw error;
    answer = {
      approve: false,
      message: `${question.display} was denied: nobody answered the permission question within ${formatDuration(timeoutMs)}.`,
    };
  } finally {
    pending.remove(block.id);
  }
  if (answer.approve) return { behavior: "allow" };
  return { behavior: "deny", message: answer.message || `${question.display} was denied by the user.` };
}

function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`;
}
