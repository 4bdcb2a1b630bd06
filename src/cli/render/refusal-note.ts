import { USER_REJECTED_MESSAGE, USER_STOPPED_MESSAGE } from "../../loop/permission.js";
import type { ToolResultBlock } from "../../messages/index.js";

/**
 * What the user sees instead of a result that was written for the model: the refusal of a call they said no to
 * ("The user doesn't want to proceed… STOP what you are doing…") reads "refused by you", the calls their "no"
 * stopped read "not run: you stopped the turn", a plain denial reads "denied by you". Undefined for any other
 * result (shown as it is).
 */
export function refusalNote(result: ToolResultBlock): string | undefined {
  if (!result.is_error) return undefined;
  const text = typeof result.content === "string" ? result.content : undefined;
  if (text === undefined) return undefined;
  if (text === USER_REJECTED_MESSAGE) return "refused by you";
  if (text === USER_STOPPED_MESSAGE) return "not run: you stopped the turn";
  if (text.startsWith("The user denied permission to use ")) return "denied by you";
  return undefined;
}

/**
 * Why a call was not run, when a permission rule, the mode or the user refused it (a sub-agent's denial is shown
 * under its Task call): the first sentence of the refusal, or undefined for any other result.
 */
export function denialNote(result: ToolResultBlock): string | undefined {
  const note = refusalNote(result);
  if (note) return note;
  if (!result.is_error) return undefined;
  const text =
    typeof result.content === "string"
      ? result.content
      : result.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  if (!/^(Permission to use |mitsu is in plan mode|This agent is read-only)/.test(text)) return undefined;
  const first = /^[\s\S]*?[.:](?=\s|$)/.exec(text)?.[0] ?? text;
  return first.length > 160 ? `${first.slice(0, 159)}…` : first;
}
