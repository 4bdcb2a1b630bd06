import type { PendingAsk } from "../../durable/pending-ask.js";
import type { PrintIo } from "../cli-io.js";
import { stripControls, terminalJson } from "../render/terminal-text.js";

export type RemoteAction =
  | "prompt"
  | "approve"
  | "deny"
  | "pending"
  | "transcript"
  | "cancel"
  | "list"
  | "follow";

export interface RemoteCommandOptions {
  action: RemoteAction;
  session: string;
  ingress: string;
  /** The session object's name; default `mitsu-session`. */
  object?: string;
  /** The Restate admin API (for `cancel`). */
  admin?: string;
  prompt?: string;
  workspace?: string;
  maxTurns?: number;
  /** approve / deny: the tool call (needed when several wait). */
  call?: string;
  /** deny: what the model is told. */
  message?: string;
  /** prompt: print the session's messages as they are stored. */
  follow?: boolean;
  json: boolean;
}

/**
 * `mitsu remote`: talks to durable sessions through the Restate ingress — sends a prompt and prints the answer
 * (and, while the session waits, how to answer its permission questions), or approves, denies, lists them.
 */
/** How long `approve` / `deny` wait for a worker to deliver the answer before saying that it is queued. */
const ANSWER_WAIT_MS = 3000;

export async function remoteCommand(options: RemoteCommandOptions, io: PrintIo): Promise<number> {
  const { createSessionClient } = await import("../../durable/session-client.js");
  const { DurableError } = await import("../../durable/durable-error.js");
  const client = createSessionClient({
    ingressUrl: options.ingress,
    ...(options.object !== undefined ? { name: options.object } : {}),
    ...(options.admin !== undefined ? { adminUrl: options.admin } : {}),
  });
  const out = (value: unknown) => io.stdout.write(`${terminalJson(value)}\n`);
  const describe = (ask: { toolUseId: string; display: string; reason: string; session?: string }) => {
    const where =
      ask.session !== undefined && ask.session !== options.session ? `, sub-agent ${ask.session}` : "";
    return `${stripControls(ask.display)} (${stripControls(ask.toolUseId + where)}): ${stripControls(ask.reason)}`;
  };
  try {
    switch (options.action) {
      case "prompt": {
        const prompt = options.prompt ?? "";
        if (prompt.trim() === "") {
          io.stderr.write("mitsu remote: give the prompt with -p\n");
          return 1;
        }
        const send = () =>
          client.prompt(
            options.session,
            {
              prompt,
              ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
              ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
            },
            {
              ...(io.signal ? { signal: io.signal } : {}),
              onPending: (ask) =>
                io.stderr.write(
                  `Session ${options.session} waits for permission: ${describe(ask)}\n  mitsu remote approve --session ${options.session} --call ${stripControls(ask.toolUseId)}\n  mitsu remote deny --session ${options.session} --call ${stripControls(ask.toolUseId)}\n`,
                ),
            },
          );
        const followed = options.follow === true && !options.json;
        const response = followed
          ? await (await import("./remote-follow.js")).followPrompt(client, options.session, send, io)
          : await send();
        if (options.json) out(response);
        else {
          // Followed, the answer's text was printed with its message.
          if (response.text !== "" && !followed) io.stdout.write(`${stripControls(response.text)}\n`);
          if (response.error) io.stderr.write(`mitsu remote: ${stripControls(response.error.message)}\n`);
          else if (response.reason !== "end_turn" && response.reason !== "stop_sequence")
            io.stderr.write(`mitsu remote: the run ended with ${response.reason}\n`);
        }
        return response.reason === "end_turn" || response.reason === "stop_sequence" ? 0 : 1;
      }
      case "approve":
      case "deny": {
        const body = {
          ...(options.call !== undefined ? { toolUseId: options.call } : {}),
          ...(options.message !== undefined ? { message: options.message } : {}),
        };
        // With no worker up the answer waits in the ingress's queue: said after a moment, not after a timeout.
        const wait = { waitMs: ANSWER_WAIT_MS };
        let ask: PendingAsk;
        try {
          ask =
            options.action === "approve"
              ? await client.approve(options.session, body, wait)
              : await client.deny(options.session, body, wait);
        } catch (error) {
          if (!(error instanceof DurableError) || error.status !== 202) throw error;
          io.stdout.write(`${stripControls(error.message.replace(/^[^:]*: /, ""))}\n`);
          return 0;
        }
        if (options.json) out(ask);
        else io.stdout.write(`${options.action === "approve" ? "Approved" : "Denied"}: ${describe(ask)}\n`);
        return 0;
      }
      case "pending": {
        const asks = await client.pending(options.session);
        if (options.json) out(asks);
        else if (asks.length === 0) io.stdout.write(`Session ${options.session} waits for no answer.\n`);
        else for (const ask of asks) io.stdout.write(`${describe(ask)}\n`);
        return 0;
      }
      case "cancel": {
        const id = await client.cancel(options.session);
        if (options.json) out({ cancelled: id });
        else io.stdout.write(`Cancelled the running prompt of session ${options.session} (${id}).\n`);
        return 0;
      }
      case "list": {
        const sessions = await client.list();
        if (options.json) out(sessions);
        else if (sessions.length === 0) io.stdout.write("No sessions.\n");
        else
          for (const s of sessions)
            io.stdout.write(
              `${stripControls(s.id)}  ${s.state}${s.queued > 0 ? ` (${s.queued} queued)` : ""}  ${s.messages} messages\n`,
            );
        return 0;
      }
      case "transcript":
        out(await client.transcript(options.session));
        return 0;
      case "follow": {
        const { followCommand } = await import("./remote-follow.js");
        return await followCommand(client, options.session, options.json, io);
      }
    }
  } catch (error) {
    if (io.signal?.aborted) {
      if (options.action === "prompt")
        io.stderr.write(
          `mitsu remote: stopped waiting; the prompt goes on in session ${options.session} (mitsu remote transcript --session ${options.session})\n`,
        );
      return 130;
    }
    io.stderr.write(
      `mitsu remote: ${stripControls(error instanceof Error ? error.message : String(error))}\n`,
    );
    return 1;
  }
}
