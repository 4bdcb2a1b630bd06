import { stripVTControlCharacters } from "node:util";
import type { AgentEvent } from "../loop/agent-event.js";
import type { AgentResult } from "../loop/run-agent.js";
import type { Message } from "../messages/index.js";
import {
  activateSkill,
  expandInvocation,
  findSlashTarget,
  formatSlashHelp,
  parseSlash,
} from "../skills/index.js";
import { buildSession, sessionConfigFor } from "./build-session.js";
import type { CliOptions } from "./cli-options.js";
import { errorHint } from "./error-hint.js";
import { runPrompt } from "./run-prompt.js";
import {
  closeSessionLogs,
  loadResumedSession,
  type OpenedLogs,
  openSessionLog,
  resumedConfig,
} from "./session-transcript.js";
import { colorEnabled, createStyle, type Style } from "./style.js";
import { stripControls, terminalJson } from "./terminal-text.js";
import { createTextRenderer } from "./text-renderer.js";

export interface PrintIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Read for the prompt when it is not a terminal (absent: nothing is read); a terminal starts interactive mode. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
  signal?: AbortSignal;
}

/** Exit codes: 0 the model finished; 1 an error or an unfinished answer (max turns, max tokens, refusal); 130 interrupted. */
export function exitCodeFor(result: AgentResult): number {
  if (result.reason === "end_turn" || result.reason === "stop_sequence") return 0;
  if (result.reason === "aborted") return 130;
  return 1;
}

/** `mitsu -p`: one prompt, streamed to the terminal (or as JSON), then exit. */
export async function printMode(options: CliOptions, io: PrintIo): Promise<number> {
  const style = createStyle(colorEnabled(io.stdout as NodeJS.WriteStream));
  // Notices go to stderr, coloured only when stderr itself is a terminal (`2> log` gets plain text).
  const stderrColor = colorEnabled(io.stderr as NodeJS.WriteStream);
  const notice = (text: string) => io.stderr.write(stderrColor ? text : stripVTControlCharacters(text));
  const warn = (message: string) => notice(`${style.yellow("⚠")} ${stripControls(message)}\n`);
  const prompt = options.prompt ?? "";
  if (prompt.trim() === "") {
    io.stderr.write('mitsu: no prompt. Give one as an argument (mitsu -p "…") or on standard input.\n');
    return 1;
  }
  const resumed = loadResumedSession(options, io, warn);
  const opened: OpenedLogs = { resumed, log: undefined };
  try {
    return await printSession(options, io, opened, { style, notice, warn, prompt });
  } finally {
    closeSessionLogs(opened);
  }
}

/** The rest of `printMode`, once the session to continue (if any) is loaded and locked. */
async function printSession(
  options: CliOptions,
  io: PrintIo,
  opened: OpenedLogs,
  ui: { style: Style; notice: (text: string) => void; warn: (message: string) => void; prompt: string },
): Promise<number> {
  const { style, notice, warn, prompt } = ui;
  const { resumed } = opened;
  const session = await buildSession(
    sessionConfigFor(options, io, { onWarning: warn, ...resumedConfig(resumed) }),
  );

  if (options.verbose && options.outputFormat === "text") {
    const { mode, origin } = session.permissionMode;
    notice(
      style.dim(
        `permission mode: ${mode} (from ${origin})${session.trusted ? "" : "; folder not trusted"}\n`,
      ),
    );
  }

  let text = prompt;
  const slash = parseSlash(prompt);
  if (slash) {
    if (slash.name === "help") {
      io.stdout.write(`${stripControls(formatSlashHelp(session.catalog))}\n`);
      return 0;
    }
    const target = findSlashTarget(slash.name, session.catalog);
    if (!target) {
      io.stderr.write(
        `mitsu: unknown command /${slash.name}. Run \`mitsu skills\` to list commands and skills.\n`,
      );
      return 1;
    }
    text = expandInvocation(target, slash.args);
    activateSkill(session.toolState, target);
  }

  const { history, log } = openSessionLog(resumed, options, session, io);
  opened.log = log;
  const render =
    options.outputFormat === "text"
      ? createTextRenderer({
          write: (s) => io.stdout.write(s),
          notice,
          errorHint: (error) => errorHint(error, session.providerName),
          style,
          summarize: (b) => session.summarize(b),
          usagePerTurn: options.verbose,
          // A running command's last line under its call, only where it can be redrawn in place.
          liveStatus: io.stdout.isTTY === true,
          columns: () => (io.stdout as NodeJS.WriteStream).columns,
          showsInputLive: (name) =>
            session.tools.some((t) => t.name === name && t.eagerInputStreaming === true),
        })
      : options.outputFormat === "stream-json"
        ? (event: AgentEvent) => io.stdout.write(`${terminalJson(streamJsonEvent(event))}\n`)
        : () => {};

  const result = await runPrompt({
    session,
    history,
    prompt: text,
    maxTurns: options.maxTurns,
    ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    ...(io.signal ? { signal: io.signal } : {}),
    onEvent: render,
    ...(log ? { onMessage: (m: Message) => log.append(m) } : {}),
    liveInput: options.outputFormat !== "json",
  });
  await session.flush();

  if (options.outputFormat === "json") {
    io.stdout.write(`${terminalJson(jsonResult(result, log?.path, history.length))}\n`);
  } else if (options.outputFormat === "text" && options.verbose) {
    const u = result.usage;
    notice(
      style.dim(
        `tokens: ${u.input_tokens} in, ${u.output_tokens} out, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write${log ? `; session ${log.path}` : ""}\n`,
      ),
    );
  }
  return exitCodeFor(result);
}

function finalText(result: AgentResult): string {
  const content = result.lastMessage?.content ?? [];
  return content
    .filter((b) => b.type === "text")
    .map((b) => (b.type === "text" ? b.text : ""))
    .join("");
}

/** The `--output-format json` result object; `num_turns` counts the answers after the first `from` messages (a resumed history). */
export function jsonResult(result: AgentResult, sessionPath: string | undefined, from = 0) {
  return {
    type: "result",
    is_error: exitCodeFor(result) !== 0,
    stop_reason: result.reason,
    result: finalText(result),
    num_turns: result.messages.slice(from).filter((m) => m.role === "assistant").length,
    usage: result.usage,
    ...(result.error ? { error: result.error } : {}),
    ...(sessionPath ? { session: sessionPath } : {}),
    messages: result.messages,
  };
}

/**
 * An event as `--output-format stream-json` prints it. `turn-start` carries the request's settings and sizes,
 * not the whole transcript again on every turn (that output would grow with the square of the session);
 * `--dump-requests` writes the exact requests.
 */
export function streamJsonEvent(event: AgentEvent): unknown {
  if (event.type !== "turn-start") return event;
  const { request, ...rest } = event;
  return {
    ...rest,
    request: {
      model: request.model,
      maxTokens: request.maxTokens,
      system: request.system.length,
      tools: request.tools.map((t) => t.name),
      messages: request.messages.length,
    },
  };
}
