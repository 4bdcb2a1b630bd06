/** The beta that turns on eager (fine-grained) input streaming for every tool that does not opt out. */
export const FINE_GRAINED_BETA = "fine-grained-tool-streaming-2025-05-14";

/**
 * Names of the request's tools whose input streams eagerly: `eager_input_streaming: true` on the definition,
 * or the fine-grained beta header and the tool does not say `false`. Others are buffered: the API validates
 * the whole input before releasing it.
 */
export function eagerToolNames(tools: unknown, headers: Record<string, string>): Set<string> {
  const beta = (headers["anthropic-beta"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .includes(FINE_GRAINED_BETA);
  const eager = new Set<string>();
  if (!Array.isArray(tools)) return eager;
  for (const tool of tools) {
    if (!tool || typeof tool !== "object") continue;
    const { name, eager_input_streaming: flag } = tool as { name?: unknown; eager_input_streaming?: unknown };
    if (typeof name !== "string") continue;
    if (flag === true || (beta && flag !== false)) eager.add(name);
  }
  return eager;
}
