import { createHash } from "node:crypto";

const VALID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool-use id in the form the Messages API accepts (`^[a-zA-Z0-9_-]+$`). Ids from other providers may not
 * be (`functions.read:0` from some OpenAI-compatible gateways); they are mapped deterministically, so a
 * tool_use and its tool_result still agree, with a short hash so that two ids never collapse into one.
 */
export function wireToolId(id: string): string {
  if (VALID.test(id)) return id;
  const hash = createHash("sha256").update(id).digest("hex").slice(0, 8);
  return `${id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 48)}_${hash}`;
}
