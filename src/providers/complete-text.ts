import type { Provider } from "./provider.js";

/**
 * One plain model call: `prompt` as the only user message, no tools, and the answer's text. Throws when the
 * call fails or is aborted (for tools that need a side answer, e.g. WebFetch reading a page).
 */
export async function completeText(
  provider: Provider,
  model: string,
  prompt: string,
  options: { signal?: AbortSignal; maxTokens?: number; system?: string } = {},
): Promise<string> {
  let text = "";
  let ended = false;
  for await (const event of provider.stream(
    {
      model,
      system: options.system ? [{ type: "text", text: options.system }] : [],
      tools: [],
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      maxTokens: options.maxTokens ?? 2048,
    },
    { ...(options.signal ? { signal: options.signal } : {}), liveInput: false },
  )) {
    if (event.type !== "message-end") continue;
    ended = true;
    const message = event.message;
    if (message.stop_reason === "error" || message.stop_reason === "aborted") {
      throw new Error(`The model call failed: ${message.error?.message ?? message.stop_reason}`);
    }
    for (const block of message.content) if (block.type === "text") text += block.text;
  }
  if (!ended) throw new Error("The model call ended without an answer.");
  return text;
}
