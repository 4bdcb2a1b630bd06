import type { PermissionOption, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { PermissionAnswer } from "../../permissions/index.js";

/** What a permission question offers in the editor: the terminal's yes / always / no. */
export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

/**
 * The harness's answer for the editor's: an option picked, or a cancelled question (the turn was cancelled, the
 * client went away), which denies. An option id that is none of ours denies too.
 */
export function permissionAnswer(response: RequestPermissionResponse | undefined): PermissionAnswer {
  const outcome = response?.outcome;
  if (outcome?.outcome !== "selected") return "deny";
  if (outcome.optionId === "allow_once") return "allow_once";
  if (outcome.optionId === "allow_always") return "allow_always";
  return "deny";
}
