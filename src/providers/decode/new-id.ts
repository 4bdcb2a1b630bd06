import { randomUUID } from "node:crypto";

/** A fresh tool-use id (`call_…`) for a call the provider gave none; unique across sessions. */
export function newToolUseId(prefix = "call_"): string {
  return `${prefix}${randomUUID().replaceAll("-", "").slice(0, 24)}`;
}
