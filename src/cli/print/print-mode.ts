import { stripVTControlCharacters } from "node:util";
import { type CodingAgent, createCodingAgent, listProjectSessions } from "../../harness/index.js";
import type { AgentEvent, AgentResult } from "../../loop/agent-event.js";
import { findSlashTarget, formatSlashHelp, parseSlash } from "../../skills/index.js";
import { agentOptionsFor } from "../agent-options.js";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import { mcpPromptHelp } from "../conversation/builtin-commands.js";
import { preparePrompt } from "../conversation/prepare-prompt.js";
import { formatSessionList } from "../conversation/session-list.js";
import { stoppedShellsNotice } from "../conversation/shells-status.js";
import { waitsForBackgroundAgents, withBackgroundAgents } from "../conversation/with-background-agents.js";
import { errorHint } from "../render/error-hint.js";
import { colorEnabled, createStyle } from "../render/style.js";
import { createSubagentRenderer } from "../render/subagent-renderer.js";
import { stripControls, terminalJson } from "../render/terminal-text.js";
import { createTextRenderer } from "../render/text-renderer.js";
import { failedResult } from "../sdk/failed-result.js";
import { createPrintOutput } from "../sdk/print-output.js";

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
  // A failure before the run: the message on stderr, and under json/stream-json the result a script parses.
  const fail = (message: string): number => {
    io.stderr.write(`mitsu: ${stripControls(message)}\n`);
    if (options.outputFormat === "json" || options.outputFormat === "stream-json")
      io.stdout.write(`${terminalJson({ ...failedResult(message), result: message })}\n`);
    return 1;
  };
  const prompt = options.prompt ?? "";
  if (options.pickSession) {
    // Nobody can pick at a pipe: list the sessions, to name one with -r <id>.
    io.stdout.write(`${formatSessionList(listProjectSessions(io), style)}\n`);
    if (prompt.trim() === "") return 0;
    return fail("-r without a session cannot pick one here: give its id, mitsu -r <id> -p …");
  }
  if (prompt.trim() === "") {
    return fail('no prompt. Give one as an argument (mitsu -p "…") or on standard input.');
  }
  const agent = await createCodingAgent(agentOptionsFor(options, io, { onWarning: warn }));
  try {
    if (options.verbose && options.outputFormat === "text") {
      const { mode, origin } = agent.permissionMode;
      notice(
        style.dim(
          `permission mode: ${mode} (from ${origin})${agent.trusted ? "" : "; folder not trusted"}\n`,
        ),
      );
    }
    let invocation: Parameters<typeof preparePrompt>[2];
    warnSkippedMcpServers(agent, warn);
    /** An MCP server's prompt, expanded by the server: sent as it is (no @file or !command expansion of its text). */
    let fromServer: string | undefined;
    const slash = parseSlash(prompt);
    const mcpSlash = slash ? agent.expandSlash(prompt) : undefined;
    if (mcpSlash?.kind === "mcp-prompt") {
      try {
        fromServer = await mcpSlash.expand(io.signal);
      } catch (error) {
        return fail((error as Error).message);
      }
    } else if (slash) {
      if (slash.name === "help") {
        const help = [formatSlashHelp(agent.skills), ...mcpPromptHelp(agent, style)].join("\n");
        io.stdout.write(`${stripControls(help)}\n`);
        return 0;
      }
      const target = findSlashTarget(slash.name, agent.skills);
      if (!target) {
        return fail(`unknown command /${slash.name}. Run \`mitsu skills\` to list commands and skills.`);
      }
      invocation = { target, args: slash.args };
    }
    // Confined: a print-mode prompt may be piped in from an untrusted source.
    const prepared =
      fromServer !== undefined
        ? { prompt: fromServer }
        : await preparePrompt(agent, prompt, invocation, {
            cwd: io.cwd,
            signal: io.signal,
            confine: true,
          });
    if ("error" in prepared) {
      return fail(prepared.error);
    }

    const text_ = (write: (text: string) => void, liveStatus: boolean) =>
      createTextRenderer({
        write,
        notice,
        errorHint: (error) => errorHint(error, agent.providerName),
        style,
        summarize: (b) => agent.summarize(b),
        usagePerTurn: options.verbose,
        ...(options.hideThinking ? { hideThinking: true } : {}),
        // A running command's last line under its call, only where it can be redrawn in place.
        liveStatus,
        columns: () => (io.stdout as NodeJS.WriteStream).columns,
        showsInputLive: (name) => agent.tools.some((t) => t.name === name && t.eagerInputStreaming === true),
      });
    const writeOut = (s: string) => {
      io.stdout.write(s);
    };
    const render =
      options.outputFormat === "text"
        ? createSubagentRenderer({
            render: text_(writeOut, io.stdout.isTTY === true),
            style,
            summarize: (b) => agent.summarize(b),
            verbose: options.verbose,
            live: io.stdout.isTTY === true,
            write: writeOut,
            childRenderer: (write) => text_(write, false),
          })
        : options.outputFormat === "mitsu-events"
          ? (event: AgentEvent) => io.stdout.write(`${terminalJson(streamJsonEvent(event))}\n`)
          : options.outputFormat === "stream-json"
            ? (event: AgentEvent) => {
                for (const line of claude.lines(event)) io.stdout.write(`${terminalJson(line)}\n`);
              }
            : (event: AgentEvent) => {
                claude.lines(event);
              };
    const claude = createPrintOutput(agent, {
      cwd: io.cwd,
      includePartialMessages: options.sdk?.includePartialMessages === true,
      cacheTtl: options.cacheTtl,
    });
    claude.start();

    const promptOptions = {
      ...(prepared.model ? { model: prepared.model } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      liveInput: options.outputFormat !== "json",
    };
    // A background agent's messages go to stream-json as they come, tagged with the Task call that started it.
    if (options.outputFormat === "stream-json") agent.backgroundAgents?.onEvent((event) => render(event));
    // Background agents still running when the answer ends are waited for; each end starts a turn.
    const run = withBackgroundAgents(
      agent.prompt(prepared.prompt, promptOptions),
      (prompt) => agent.prompt(prompt, promptOptions),
      agent.backgroundAgents,
      { wait: waitsForBackgroundAgents(io.env), ...(io.signal ? { signal: io.signal } : {}) },
    );
    let result: AgentResult;
    // The agent's end stops what the model left running in the background.
    let stillRunning: ReturnType<typeof agent.shells.running> = [];
    try {
      for (;;) {
        const next = await run.next();
        if (next.done) {
          result = next.value;
          break;
        }
        render(next.value);
      }
    } finally {
      stillRunning = agent.shells.running();
      await agent.close();
    }
    const stopped = stoppedShellsNotice(stillRunning);
    if (stopped && options.outputFormat === "text") notice(style.dim(`${stopped}\n`));
    const sessionPath = agent.sessionPath;
    if (options.outputFormat === "json" || options.outputFormat === "stream-json") {
      io.stdout.write(`${terminalJson(claude.result(result))}\n`);
    } else if (options.outputFormat === "text" && options.verbose) {
      const u = result.usage;
      notice(
        style.dim(
          `tokens: ${u.input_tokens} in, ${u.output_tokens} out, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache write${sessionPath ? `; session ${sessionPath}` : ""}\n`,
        ),
      );
    }
    return exitCodeFor(result);
  } finally {
    await agent.close();
  }
}

/**
 * An event as `--output-format mitsu-events` prints it, with `parent_tool_use_id` (null for the main agent's
 * events). `turn-start` carries the request's settings and sizes,
 * not the whole transcript again on every turn (that output would grow with the square of the session);
 * `--dump-requests` writes the exact requests.
 */
export function streamJsonEvent(event: AgentEvent): unknown {
  // A sub-agent's events carry the id of the Task call that started it, as Claude Code's `parent_tool_use_id`.
  const parent_tool_use_id = event.agentPath.at(-1) ?? null;
  if (event.type !== "turn-start") return { ...event, parent_tool_use_id };
  const { request, ...rest } = event;
  return {
    ...rest,
    parent_tool_use_id,
    request: {
      model: request.model,
      maxTokens: request.maxTokens,
      system: request.system.length,
      tools: request.tools.map((t) => t.name),
      messages: request.messages.length,
    },
  };
}

/** Print mode cannot ask: a project server nobody approved is named, with how to approve it. */
function warnSkippedMcpServers(agent: CodingAgent, warn: (message: string) => void): void {
  for (const { entry, reason } of agent.mcp?.skipped ?? []) {
    // An untrusted folder's servers are named in the trust notice already.
    if (reason !== "pending") continue;
    warn(
      `The MCP server "${entry.name}" of ${entry.source} was not started: it has not been approved for this project. Approve it with \`mitsu mcp approve ${entry.name}\`, or answer mitsu's question in interactive mode.`,
    );
  }
}
