import { createInterface } from "node:readline";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import { createControlChannel } from "./control-channel.js";
import { readSdkInput } from "./sdk-input.js";
import { SdkSession } from "./sdk-session.js";

/**
 * `--input-format stream-json --output-format stream-json`: Claude Code's SDK protocol, so that an app built on
 * the Claude Agent SDK (or any program speaking it) drives mitsu. Standard input carries user messages (each one
 * prompt of one conversation, run in order) and the control protocol: the app's `control_request`s are answered
 * at once, also while a prompt runs; `control_response`s answer mitsu's own (`can_use_tool`, `hook_callback`,
 * `mcp_message`). A line that cannot be used gets an error — a control request's in its `control_response`, any
 * other as a `system`/`informational` warning (and on stderr) — and never ends the session. Ends at the end of standard input, after the queued prompts.
 */
export async function sdkMode(options: CliOptions, io: PrintIo): Promise<number> {
  const channel = createControlChannel((line) => {
    io.stdout.write(line);
  });
  const session = new SdkSession(options, io, channel);
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    inFlight.add(work);
    work
      .catch((error: unknown) => io.stderr.write(`mitsu: ${(error as Error).message}\n`))
      .finally(() => inFlight.delete(work));
  };
  try {
    if (options.prompt) track(session.prompt(options.prompt));
    const reader = io.stdin
      ? createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY })
      : undefined;
    const lines = reader ?? [];
    // Ctrl-C (SIGINT): the running prompt stops as on `interrupt`, nothing more is read, queued prompts do not run.
    const onAbort = () => {
      session.stop();
      reader?.close();
    };
    if (io.signal?.aborted) onAbort();
    io.signal?.addEventListener("abort", onAbort, { once: true });
    for await (const line of lines) {
      const input = readSdkInput(line);
      switch (input.kind) {
        case "user":
          track(session.prompt(input.content, input.uuid));
          break;
        case "control_request":
          track(session.control(input.requestId, input.request));
          break;
        case "control_response":
          if (!channel.settle(input.response))
            session.notice(
              `ignored a control_response to no waiting request (${JSON.stringify(input.response.request_id ?? null)})`,
            );
          break;
        case "control_cancel_request":
          // mitsu's answers to the app are immediate: there is nothing of the app's still running to cancel.
          break;
        case "invalid":
          if (input.requestId !== undefined) channel.respondError(input.requestId, input.error);
          else session.notice(`ignored an input line: ${input.error}`);
          break;
        case "none":
          break;
      }
    }
    // Standard input ended: nothing more can answer mitsu's questions (they are denied), and the prompts
    // already read still run to their end.
    channel.close("The app closed standard input.");
    while (inFlight.size > 0) await Promise.all(inFlight);
    io.signal?.removeEventListener("abort", onAbort);
    return io.signal?.aborted ? 130 : session.code;
  } finally {
    channel.close("The app closed standard input.");
    await session.close();
  }
}
