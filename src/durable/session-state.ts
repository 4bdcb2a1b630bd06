import type { ObjectContext, ObjectSharedContext } from "@restatedev/restate-sdk";
import type { Message, TextBlock } from "../messages/index.js";
import type { PendingAsk } from "./pending-ask.js";

/**
 * The keys of a session object's state. The transcript is append-only: one key per message (`message:<n>`)
 * and its length, so appending a message journals that message alone, never the whole history again.
 */
export const STATE = {
  length: "length",
  message: (index: number) => `message:${index}`,
  /** The system prompt of the session's first prompt, sent again on every later one (a stable prefix). */
  system: "system",
  workspace: "workspace",
  pending: "pending",
  /** The sub-agent sessions (`<session>.<tool_use id>`) a run waits on. */
  children: "children",
  /** The transcript's digest (see `transcript-cache.ts`): a worker's cached copy is used when it matches. */
  digest: "digest",
  /** How many tool-state changes are stored (`toolStateChange`): one per invocation that changed the state. */
  toolStates: "tool-states",
  /** The tool-state changes of one invocation (`toolStateDelta`), loaded in order over the legacy whole state. */
  toolStateChange: (index: number) => `tool-state:${index}`,
  /** The persisted tool-state slots (`DurableAgentSetup.toolStateKeys`) as the last prompt left them. */
  toolState: "tool-state",
} as const;

type AnyContext = ObjectContext | ObjectSharedContext;

/** The session's transcript as stored (empty for a session never prompted). */
export async function readTranscript(ctx: AnyContext): Promise<Message[]> {
  const length = (await ctx.get<number>(STATE.length)) ?? 0;
  const messages: Message[] = [];
  for (let i = 0; i < length; i++) {
    const message = await ctx.get<Message>(STATE.message(i));
    if (!message) throw new Error(`mitsu bug: the session state lacks message ${i} of ${length}`);
    messages.push(message);
  }
  return messages;
}

/** Appends to the stored transcript; `length` is the count before this message. */
export function appendMessage(ctx: ObjectContext, length: number, message: Message): number {
  ctx.set(STATE.message(length), message);
  ctx.set(STATE.length, length + 1);
  return length + 1;
}

/**
 * A list held in memory and written whole to one state key after each change (the key cleared when the list is
 * empty): concurrent calls of one turn add and remove entries, and none may overwrite another's.
 */
export class StateList<T> {
  readonly #items: T[] = [];
  constructor(
    private readonly ctx: ObjectContext,
    private readonly key: string,
  ) {}

  add(item: T): void {
    this.#items.push(item);
    this.ctx.set(this.key, this.#items);
  }

  /** Removes `item` (the first equal one), if there. */
  delete(item: T): void {
    this.removeWhere((other) => other === item);
  }

  /** Removes the first item `match` holds for, if any. */
  removeWhere(match: (item: T) => boolean): void {
    const index = this.#items.findIndex(match);
    if (index >= 0) this.#items.splice(index, 1);
    if (this.#items.length > 0) this.ctx.set(this.key, this.#items);
    else this.ctx.clear(this.key);
  }
}

export async function readSystem(ctx: AnyContext): Promise<TextBlock[] | undefined> {
  return (await ctx.get<TextBlock[]>(STATE.system)) ?? undefined;
}

export async function readPending(ctx: AnyContext): Promise<PendingAsk[]> {
  return (await ctx.get<PendingAsk[]>(STATE.pending)) ?? [];
}

/** The stored tool-state changes, in order (read from the state: each read journaled with its value). */
export async function readToolStateChanges(
  ctx: AnyContext,
  count: number,
): Promise<Record<string, unknown>[]> {
  const changes: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++)
    changes.push((await ctx.get<Record<string, unknown>>(STATE.toolStateChange(i))) ?? {});
  return changes;
}
