import { DurableError } from "../../durable/durable-error.js";
import type { SessionClient, SessionEvent } from "../../durable/session-client.js";
import type { ContentBlock, Message } from "../../messages/index.js";
import type { PrintIo } from "../cli-io.js";
import { stripControls, terminalJson } from "../render/terminal-text.js";

/** The longest a tool call's input or result is shown, in characters (its first line). */
const SHOWN = 160;

function firstLine(text: string): string {
  const lines = text.split("\n");
  const line = stripControls(lines[0] ?? "");
  const cut = line.length > SHOWN ? `${line.slice(0, SHOWN)}…` : line;
  return lines.length > 1 ? `${cut} (+${lines.length - 1} lines)` : cut;
}

function blockLines(message: Message, block: ContentBlock): string[] {
  switch (block.type) {
    case "text":
      if (block.text.trim() === "") return [];
      return message.role === "user"
        ? [`> ${stripControls(block.text).split("\n").join("\n  ")}`]
        : [stripControls(block.text)];
    case "tool_use":
      return [`● ${stripControls(block.name)}(${firstLine(JSON.stringify(block.input))})`];
    case "tool_result": {
      const text =
        typeof block.content === "string"
          ? block.content
          : block.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
      return [`  ⎿ ${block.is_error ? "error: " : ""}${firstLine(text)}`];
    }
    default:
      return [];
  }
}

/** One event as text lines (empty: nothing to show, e.g. a reminder-only block). */
export function eventLines(session: string, event: SessionEvent): string[] {
  switch (event.type) {
    case "message":
      return event.message.content.flatMap((block) => blockLines(event.message, block));
    case "pending": {
      const { ask } = event;
      const id = stripControls(ask.toolUseId);
      return [
        `Session ${session} waits for permission: ${stripControls(ask.display)} (${id}): ${stripControls(ask.reason)}`,
        `  mitsu remote approve --session ${session} --call ${id}`,
        `  mitsu remote deny --session ${session} --call ${id}`,
      ];
    }
    case "running":
      return [event.running ? `[session ${session}: a prompt runs]` : `[session ${session}: idle]`];
  }
}

/**
 * `mitsu remote follow`: prints the session's history, then its events as they happen (the server wakes the
 * call on each: nothing is polled), and ends when no prompt runs. With --json, one event per line.
 */
export async function followCommand(
  client: SessionClient,
  session: string,
  json: boolean,
  io: PrintIo,
): Promise<number> {
  for await (const event of client.follow(session, io.signal ? { signal: io.signal } : {})) {
    if (json) io.stdout.write(`${terminalJson(event)}\n`);
    else for (const line of eventLines(stripControls(session), event)) io.stdout.write(`${line}\n`);
  }
  return 0;
}

/**
 * `mitsu remote -p … --follow`: runs `prompt` while the session's new messages are printed as they are stored
 * (its questions go to standard error through the prompt's own notice); after the answer, what was stored since
 * the last look.
 */
export async function followPrompt<T>(
  client: SessionClient,
  session: string,
  prompt: () => Promise<T>,
  io: PrintIo,
): Promise<T> {
  let from = 0;
  try {
    // Only the length: no message is past the end.
    from = (await client.events(session, { from: Number.MAX_SAFE_INTEGER })).length;
  } catch (error) {
    if (!(error instanceof DurableError && error.status === 404)) throw error;
  }
  const shown = stripControls(session);
  let next = from;
  const print = (event: SessionEvent) => {
    if (event.type !== "message" || event.index < next) return;
    next = event.index + 1;
    for (const line of eventLines(shown, event)) io.stdout.write(`${line}\n`);
  };
  const stop = new AbortController();
  const following = (async () => {
    try {
      for await (const event of client.follow(session, {
        from,
        running: false,
        untilIdle: false,
        signal: stop.signal,
      }))
        print(event);
    } catch {
      // Stopped (the answer came), or the ingress went away: the prompt's own outcome says so.
    }
  })();
  try {
    return await prompt();
  } finally {
    stop.abort();
    await following;
    const rest = await client.events(session, { from: next }).catch(() => undefined);
    for (const [i, message] of (rest?.messages ?? []).entries())
      print({ type: "message", index: (rest?.from ?? next) + i, message });
  }
}
