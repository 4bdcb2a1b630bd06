import type { Message } from "../../messages/index.js";
import { typedPrompt } from "../conversation/typed-prompt.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";

/** A user message's own words: its text blocks, without the `<system-reminder>` blocks mitsu added. */
function promptOf(message: Message): string | undefined {
  if (message.role !== "user") return undefined;
  const texts = message.content
    .map((b) => (typeof b !== "string" && b.type === "text" ? b.text : ""))
    .filter((t) => t.trim() !== "" && !t.trimStart().startsWith("<system-reminder>"));
  return texts.length > 0 ? texts.join("\n") : undefined;
}

function answerOf(message: Message): string {
  return message.content.map((b) => (typeof b !== "string" && b.type === "text" ? b.text : "")).join("");
}

/**
 * The last `exchanges` prompts of a resumed conversation, each with the model's last words after it, so that
 * `mitsu -c` opens where the user left off. Long answers are cut to `maxLines`. Empty for a new conversation.
 */
export function resumedRecap(
  history: readonly Message[],
  style: Style,
  exchanges = 3,
  maxLines = 12,
): string {
  const starts = history.flatMap((m, i) => (promptOf(m) !== undefined ? [i] : []));
  const shown = starts.slice(-exchanges);
  if (shown.length === 0) return "";
  const out: string[] = [style.dim(`… ${starts.length - shown.length} earlier prompts`)];
  if (starts.length === shown.length) out.pop();
  shown.forEach((start, k) => {
    const end = shown[k + 1] ?? history.length;
    out.push(`${style.bold(">")} ${stripControls(typedPrompt(promptOf(history[start] as Message) ?? ""))}`);
    const answer = history
      .slice(start + 1, end)
      .filter((m) => m.role === "assistant")
      .map(answerOf)
      .filter((t) => t.trim() !== "")
      .at(-1);
    if (answer) {
      const lines = stripControls(answer).trimEnd().split("\n");
      out.push(...lines.slice(0, maxLines));
      if (lines.length > maxLines) out.push(style.dim(`… (+${lines.length - maxLines} lines)`));
    }
  });
  return `${out.join("\n")}\n${style.dim("─── resumed ───")}\n`;
}
