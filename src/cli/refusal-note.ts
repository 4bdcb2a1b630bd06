import { USER_REJECTED_MESSAGE, USER_STOPPED_MESSAGE } from "../loop/permission.js";
import type { ToolResultBlock } from "../messages/index.js";

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
