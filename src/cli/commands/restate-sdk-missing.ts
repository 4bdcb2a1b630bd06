/** The words for a missing optional Restate SDK, or undefined when `error` is something else. */
export function restateSdkMissing(error: unknown): string | undefined {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code !== "ERR_MODULE_NOT_FOUND" || !message.includes("@restatedev/restate-sdk")) return undefined;
  return "needs the Restate SDK, an optional dependency of mitsu. Install it beside mitsu: npm install @restatedev/restate-sdk@1.17";
}
