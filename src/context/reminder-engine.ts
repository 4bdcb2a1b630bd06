import type { ContentBlock, Message, TextBlock, UserMessage } from "../messages/index.js";

/** What a reminder source sees when it decides whether to speak. */
export interface ReminderState {
  /** The loop's turn number (from `prepareRequest`'s info). */
  turn: number;
  /** The engine's own round counter: 1 on the first `collect`, +1 per call, across the whole session. */
  round: number;
  /** The request's messages before reminders are added; the last is the user message that will carry them. */
  messages: readonly Message[];
  now: Date;
  /** True when the newest user message is the first user message of the conversation. */
  firstUserMessage: boolean;
}

/** A reminder source: decides each turn whether to put a `<system-reminder>` into the newest user message. */
export interface ReminderSource {
  /** Unique per engine; rate limiting is keyed by it. */
  name: string;
  /**
   * Called once per turn; returns text to remind, or undefined to stay silent. The engine wraps the text
   * in `<system-reminder>` tags. A throw is reported as a warning and the source is skipped for that turn.
   */
  collect(state: ReminderState): string | undefined | Promise<string | undefined>;
  /**
   * The transcript that carried this source's words was replaced (compaction): forget what was sent, so
   * the next `collect` speaks again as on the first turn (project instructions are re-sent this way).
   */
  reset?(): void;
}

/** One reminder the engine decided to send. */
export interface Reminder {
  source: string;
  text: string;
  block: TextBlock;
}

export interface ReminderEngineOptions {
  sources?: ReminderSource[];
  /**
   * An unchanged text (same source, same text) is sent again only after this many rounds; a changed
   * text is sent at once. Default 10. Bounds what a reminder repeated "every turn" costs.
   */
  remindEvery?: number;
  /** Called when a source throws; default: ignored. */
  onError?: (source: string, error: unknown) => void;
}

const OPEN = "<system-reminder>\n";
const CLOSE = "\n</system-reminder>";

/** Wraps text as a reminder block: a separate text block, so it never merges with the user's words. */
export function reminderBlock(text: string): TextBlock {
  return { type: "text", text: `${OPEN}${text}${CLOSE}` };
}

export function isReminderBlock(block: ContentBlock): block is TextBlock {
  return block.type === "text" && block.text.startsWith(OPEN) && block.text.endsWith(CLOSE);
}

/**
 * A copy of `message` with the reminder blocks added: after the tool_result blocks when there are any
 * (Anthropic requires tool results to come first in their message), else before the user's text.
 * The original message is not changed.
 */
export function injectReminders(message: UserMessage, reminders: readonly TextBlock[]): UserMessage {
  if (reminders.length === 0) return message;
  let at = 0;
  while (at < message.content.length && message.content[at]!.type === "tool_result") at++;
  return {
    ...message,
    content: [...message.content.slice(0, at), ...reminders, ...message.content.slice(at)],
  };
}

/** Whether a user message of the transcript already holds this exact reminder. */
function inHistory(messages: readonly Message[], text: string): boolean {
  return messages.some(
    (m) => m.role === "user" && m.content.some((b) => b.type === "text" && b.text === text),
  );
}

/** Runs reminder sources each turn, with rate limiting of unchanged reminders. */
export class ReminderEngine {
  readonly #sources: ReminderSource[] = [];
  readonly #remindEvery: number;
  readonly #onError: ((source: string, error: unknown) => void) | undefined;
  /** Per source: the last text sent and the round it was sent in. */
  readonly #last = new Map<string, { text: string; round: number }>();
  #round = 0;

  constructor(options: ReminderEngineOptions = {}) {
    const every = options.remindEvery ?? 10;
    if (!Number.isInteger(every) || every < 1) {
      throw new RangeError(`remindEvery must be a positive integer, got ${String(every)}`);
    }
    this.#remindEvery = every;
    this.#onError = options.onError;
    for (const source of options.sources ?? []) this.add(source);
  }

  /** Adds a source; its reminders come after those of sources added earlier. */
  add(source: ReminderSource): void {
    if (this.#sources.some((s) => s.name === source.name)) {
      throw new Error(`A reminder source named "${source.name}" is already registered`);
    }
    this.#sources.push(source);
  }

  get sources(): readonly ReminderSource[] {
    return this.#sources;
  }

  /**
   * Forgets what every source sent (the history that carried it was replaced): the next round sends each
   * source's current text again, unless the kept transcript already holds it word for word.
   */
  reset(): void {
    this.#last.clear();
    for (const source of this.#sources) source.reset?.();
  }

  /** One round: asks every source, in order, and returns the reminders to send now. */
  async collect(state: Omit<ReminderState, "round">): Promise<Reminder[]> {
    this.#round++;
    const round = this.#round;
    const reminders: Reminder[] = [];
    for (const source of this.#sources) {
      let text: string | undefined;
      try {
        text = await source.collect({ ...state, round });
      } catch (error) {
        this.#onError?.(source.name, error);
        continue;
      }
      if (text === undefined || text.trim() === "") continue;
      const last = this.#last.get(source.name);
      if (last && last.text === text && round - last.round < this.#remindEvery) continue;
      const block = reminderBlock(text);
      this.#last.set(source.name, { text, round });
      // A source's first word in this engine may repeat what the transcript already carries (a resumed
      // session): the model has it, so it counts as sent now.
      if (!last && inHistory(state.messages, block.text)) continue;
      reminders.push({ source: source.name, text, block });
    }
    return reminders;
  }
}
