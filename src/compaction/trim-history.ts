import type {
  ContentBlock,
  ImageBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "../messages/index.js";
import { estimateMessagesTokens, estimateMessageTokens } from "./estimate-tokens.js";
import { latestPrompt } from "./latest-prompt.js";
import { splitHistory } from "./split-history.js";

export interface TrimOptions {
  /** The size (estimated tokens of the messages) to bring the transcript down to by removing old content. */
  targetTokens: number;
  /**
   * The size it must not pass in any case: when removing old content is not enough (one tool result larger
   * than the window), the newest content is cut too, with a note, down to this. Default `targetTokens`.
   */
  maxTokens?: number;
  /** The newest messages kept verbatim while older content can go, in estimated tokens. */
  keepRecentTokens: number;
  /** The provider's wire protocol, for the image estimate. */
  api?: string;
}

/** A transcript made smaller without a model call, and what was done to it. */
export interface TrimResult {
  messages: Message[];
  /** Tool results (and images) replaced by a note. */
  resultsRemoved: number;
  /** The oldest messages dropped whole (when removing results was not enough). */
  messagesDropped: number;
  /** Blocks of the newest messages cut short (a single turn larger than the room). */
  blocksCut: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** Results smaller than this are left as they are: a note would save nothing. */
const SMALL_RESULT_TOKENS = 100;
/** The least of a cut block that is kept (its start and its end). */
const MIN_KEPT_CHARS = 2_000;

const hasToolResult = (m: Message) => m.role === "user" && m.content.some((b) => b.type === "tool_result");

/** `Read({"file_path":"src/a.ts"})`, at most ~160 characters: what a removed result was the output of. */
function describeCall(call: ToolUseBlock | undefined): string {
  if (!call) return "a tool call";
  const input = JSON.stringify(call.input) ?? "{}";
  return `${call.name}(${input.length > 140 ? `${input.slice(0, 140)}…` : input})`;
}

const thousands = (n: number) => n.toLocaleString("en-US");

function removedResult(
  block: ToolResultBlock,
  call: ToolUseBlock | undefined,
  tokens: number,
): ToolResultBlock {
  const note = `[The output of ${describeCall(call)} was removed to fit the context window (about ${thousands(tokens)} tokens). Run the call again if it is still needed.]`;
  const out: ToolResultBlock = { type: "tool_result", tool_use_id: block.tool_use_id, content: note };
  if (block.is_error) out.is_error = true;
  return out;
}

function removedImage(): TextBlock {
  return { type: "text", text: "[An image was removed here to fit the context window.]" };
}

/** A text cut to about `keepChars`: its start and its end, with a note of what was cut between them. */
function cutText(text: string, keepChars: number): string {
  if (text.length <= keepChars) return text;
  const head = Math.ceil(keepChars * 0.7);
  const tail = Math.max(0, keepChars - head);
  const note = `\n[… ${thousands(text.length - head - tail)} characters cut here to fit the context window …]\n`;
  return text.slice(0, head) + note + (tail > 0 ? text.slice(-tail) : "");
}

/** Cuts the blocks of a message that carry text so that the message loses about `excessChars` characters. */
function cutMessage(message: Message, excessChars: number): { message: Message; cut: number } {
  let cut = 0;
  let excess = excessChars;
  const content = message.content.map((block): ContentBlock => {
    if (excess <= 0) return block;
    if (block.type === "tool_result") {
      const parts =
        typeof block.content === "string" ? [{ type: "text" as const, text: block.content }] : block.content;
      const next: Array<TextBlock | ImageBlock> = [];
      for (const part of parts) {
        if (excess > 0 && part.type === "image") {
          cut++;
          excess -= 4 * estimateMessageTokens({ role: "user", content: [part] });
          next.push(removedImage());
        } else if (excess > 0 && part.type === "text" && part.text.length > MIN_KEPT_CHARS) {
          const keep = Math.max(MIN_KEPT_CHARS, part.text.length - excess);
          cut++;
          excess -= part.text.length - keep;
          next.push({ ...part, text: cutText(part.text, keep) });
        } else next.push(part);
      }
      const single = next.length === 1 && next[0]?.type === "text" && typeof block.content === "string";
      return { ...block, content: single ? (next[0] as TextBlock).text : next };
    }
    if (block.type === "text" && message.role === "user" && block.text.length > MIN_KEPT_CHARS) {
      const keep = Math.max(MIN_KEPT_CHARS, block.text.length - excess);
      cut++;
      excess -= block.text.length - keep;
      return { ...block, text: cutText(block.text, keep) };
    }
    if (block.type === "image") {
      cut++;
      excess -= 4 * estimateMessageTokens({ role: "user", content: [block] });
      return removedImage();
    }
    return block;
  });
  return { message: cut > 0 ? ({ ...message, content } as Message) : message, cut };
}

/**
 * Makes a transcript smaller without any model call, deterministically (the fallback when a summary cannot be
 * written, and the way to fit one turn larger than the window). In order, until it fits:
 * 1. old tool results (and images) are replaced, oldest first, by a one-line note of what they were (the
 *    call's name and input); the newest messages (`keepRecentTokens`) stay verbatim;
 * 2. the oldest messages are dropped whole, at a point where no tool_use loses its result, with a note (and
 *    the user's latest words, if they were among them) opening what remains;
 * 3. the largest blocks of what remains are cut (their start and end kept, with a note), down to `maxTokens`.
 * Every tool_use keeps exactly one tool_result, and the transcript starts with a user message.
 */
export function trimHistory(messages: readonly Message[], options: TrimOptions): TrimResult {
  const { api } = options;
  const target = options.targetTokens;
  const hard = Math.max(target, options.maxTokens ?? target);
  const sizes = messages.map((m) => estimateMessageTokens(m, api));
  const tokensBefore = sizes.reduce((a, b) => a + b, 0);
  let total = tokensBefore;
  const out = [...messages];
  const result = (): TrimResult => ({
    messages: out,
    resultsRemoved,
    messagesDropped,
    blocksCut,
    tokensBefore,
    tokensAfter: estimateMessagesTokens(out, api),
  });
  let resultsRemoved = 0;
  let messagesDropped = 0;
  let blocksCut = 0;
  if (total <= target) return result();

  // 1. Old tool results and images become notes, oldest first.
  const calls = new Map<string, ToolUseBlock>();
  for (const m of messages)
    if (m.role === "assistant") for (const b of m.content) if (b.type === "tool_use") calls.set(b.id, b);
  // The verbatim tail: the newest messages within `keepRecentTokens`, and never less than the newest answer
  // and what follows it (its results are cut in step 3 if need be, never replaced by a note: the model would
  // only call again for them).
  const split = splitHistory(messages, options.keepRecentTokens, api);
  let newest = messages.length - 1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if ((messages[i] as Message).role === "assistant") {
      newest = i;
      break;
    }
  }
  const tail = Math.max(0, Math.min(messages.length - (split?.kept.length ?? messages.length), newest));
  for (let i = 0; i < tail && total > target; i++) {
    const message = out[i] as Message;
    if (message.role !== "user") continue;
    let changed = false;
    const content = message.content.map((block): ContentBlock => {
      if (block.type === "image") {
        changed = true;
        resultsRemoved++;
        return removedImage();
      }
      if (block.type !== "tool_result") return block;
      const tokens = estimateMessageTokens({ role: "user", content: [block] }, api);
      if (tokens < SMALL_RESULT_TOKENS) return block;
      changed = true;
      resultsRemoved++;
      return removedResult(block, calls.get(block.tool_use_id), tokens);
    });
    if (!changed) continue;
    const next = { ...message, content } as Message;
    const size = estimateMessageTokens(next, api);
    total += size - (sizes[i] as number);
    sizes[i] = size;
    out[i] = next;
  }
  if (total <= target) return result();

  // 2. The oldest messages go whole, up to the verbatim tail, at a point where no call loses its result.
  let cut = 0;
  let dropped = 0;
  // The note that opens what remains (with the user's latest words, at most).
  const noteTokens = 100 + Math.ceil((latestPrompt(out)?.length ?? 0) / 3);
  for (let i = 1; i <= tail && i < out.length; i++) {
    dropped += sizes[i - 1] as number;
    if (hasToolResult(out[i] as Message)) continue;
    cut = i;
    if (total - dropped + noteTokens <= target) break;
  }
  if (cut > 0) {
    const removed = out.slice(0, cut);
    const kept = out.slice(cut);
    const prompt = latestPrompt(kept) === undefined ? latestPrompt(removed) : undefined;
    let text = `[The ${cut} earliest messages of this conversation were removed to fit the context window; no summary of them could be written. The messages below are the most recent ones.]`;
    if (prompt)
      text += `\n\nThe user's latest request, in their own words:\n<request>\n${prompt}\n</request>`;
    const note: TextBlock = { type: "text", text };
    const first = kept[0];
    const head: Message[] =
      first?.role === "user"
        ? [{ ...first, content: [note, ...first.content] } as Message, ...kept.slice(1)]
        : [{ role: "user", content: [note] }, ...kept];
    out.splice(0, out.length, ...head);
    sizes.splice(0, sizes.length, ...out.map((m) => estimateMessageTokens(m, api)));
    total = sizes.reduce((a, b) => a + b, 0);
    messagesDropped = cut;
  }
  if (total <= hard) return result();

  // 3. What remains is still too large (one turn larger than the room): its largest messages are cut.
  const order = out.map((_, i) => i).sort((a, b) => (sizes[b] as number) - (sizes[a] as number));
  for (const i of order) {
    if (total <= hard) break;
    const excessChars = (total - hard) * 4 + 400;
    const { message, cut: n } = cutMessage(out[i] as Message, excessChars);
    if (n === 0) continue;
    blocksCut += n;
    out[i] = message;
    const size = estimateMessageTokens(message, api);
    total += size - (sizes[i] as number);
    sizes[i] = size;
  }
  return result();
}
