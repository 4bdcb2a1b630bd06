import type { AssistantMessage } from "../messages/index.js";
import type { ModelRequest, Provider } from "../providers/provider.js";

function failed(message: string): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    stop_reason: "error",
    incomplete: true,
    error: { type: "provider_error", message },
  };
}

/**
 * One model call's final message, as the loop's own call makes it (a stream that throws or ends without a
 * message is an error message, never a rejection): for a journaled step that makes the call itself.
 */
export async function modelAnswer(
  provider: Provider,
  request: ModelRequest,
  signal: AbortSignal,
): Promise<AssistantMessage> {
  let streamed: AssistantMessage | undefined;
  try {
    for await (const event of provider.stream(request, { signal, liveInput: false }))
      if (event.type === "message-end") streamed = event.message;
  } catch (error) {
    streamed ??= failed(
      `The provider stream threw: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return streamed ?? failed("The provider stream ended without a message-end event");
}
