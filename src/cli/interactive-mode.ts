import { createInterface } from "node:readline/promises";
import { type CodingAgent, createCodingAgent, listProjectSessions } from "../harness/index.js";
import { createMcpOAuth } from "../mcp/index.js";
import { saveLocalAllowRules } from "../permissions/save-local-rules.js";
import { type Command, findSlashTarget, parseSlash, type Skill } from "../skills/index.js";
import { agentOptionsFor } from "./agent-options.js";
import { createMcpApprovalQuestion } from "./ask-mcp-approval.js";
import { createPermissionPrompt } from "./ask-permission.js";
import { askTrust } from "./ask-trust.js";
import { runBuiltinCommand } from "./builtin-commands.js";
import { type CliOptions, DEFAULT_THINKING_BUDGET } from "./cli-options.js";
import { errorHint } from "./error-hint.js";
import { createHeldOutput, type HeldOutput } from "./held-output.js";
import { askApproveHooks } from "./hooks-command.js";
import { createLineInput } from "./line-input.js";
import { preparePrompt } from "./prepare-prompt.js";
import type { PrintIo } from "./print-mode.js";
import { resumedRecap } from "./resumed-recap.js";
import { rewind } from "./rewind-command.js";
import { formatSessionList, pickSession } from "./session-list.js";
import { sessionStatus } from "./session-status.js";
import { runningShellsLine } from "./shells-status.js";
import { colorEnabled, createStyle, type Style } from "./style.js";
import { createSubagentRenderer } from "./subagent-renderer.js";
import { stripControls } from "./terminal-text.js";
import { createTextRenderer } from "./text-renderer.js";
import { turnFooter } from "./turn-footer.js";
import { packageVersion } from "./version.js";

/** Interactive mode reads the terminal: stdin is required (and is a TTY when `main` chooses this mode). */
export type InteractiveIo = PrintIo & { stdin: NonNullable<PrintIo["stdin"]> };

/**
 * `mitsu` at a terminal: a `> ` prompt, each line one run through the loop with the transcript so far, the
 * run streamed as in print mode, and permission asks answered at the terminal. Ctrl-C stops the run at hand
 * (the loop answers its pending tool calls, so the transcript stays valid) and returns to the prompt; Ctrl-D,
 * `/exit` or Ctrl-C twice at an empty prompt leave. `options.prompt` is sent first. Resolves to the exit code:
 * 0, or 130 when `io.signal` (a signal to the process) or Ctrl-D during a run ended it (the run was interrupted).
 */
export async function interactiveMode(given: CliOptions, io: InteractiveIo): Promise<number> {
  let options = given;
  const style = createStyle(colorEnabled(io.stdout as NodeJS.WriteStream));
  const write = (text: string) => {
    io.stdout.write(text);
  };
  const warn = (message: string) => io.stderr.write(`${style.yellow("⚠")} ${stripControls(message)}\n`);
  // At a terminal the answers are drawn as Markdown; the renderer loads while the user types the first prompt.
  // (A renderer that fails to load leaves the text raw, as before.)
  const markdown =
    (io.stdout as NodeJS.WriteStream).isTTY === true
      ? import("./markdown/index.js").catch(() => undefined)
      : undefined;
  const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: true, historySize: 500 });
  const input = createLineInput(rl);
  try {
    const output = createHeldOutput(write);
    const permissions = createPermissionPrompt({ input, write, output, style });
    let run: AbortController | undefined;
    const stopRun = () => {
      run?.abort(new Error("interrupted"));
      permissions.cancel();
    };
    let emptyInterrupts = 0;
    // Registered before the slow start: without a listener, readline closes the input on Ctrl-C.
    input.onInterrupt(() => {
      if (run) return stopRun();
      if (input.partialLine !== "") {
        emptyInterrupts = 0;
        return input.clearLine();
      }
      if (++emptyInterrupts >= 2) return input.close();
      write(`\n${style.dim("(Ctrl-C again, Ctrl-D or /exit to leave)")}\n`);
      rl.prompt();
    });
    /** Ctrl-D (the input ends) during a run: the user is leaving, so the run stops too, and mitsu exits 130. */
    let leftDuringRun = false;
    rl.on("close", () => {
      // A run that Ctrl-C already stopped is over: leaving after it is leaving at the prompt.
      if (run && !run.signal.aborted) leftDuringRun = true;
      stopRun();
    });
    const open = (chosen: CliOptions) =>
      createCodingAgent(
        agentOptionsFor(chosen, io, {
          ask: async (request) => {
            const answer = await permissions.ask(request);
            // "Always" lasts beyond this session, as in Claude Code: the rules go to the project's local settings.
            if (answer === "allow_always" && request.suggestedRules.length > 0) {
              await saveLocalAllowRules(io.cwd, request.suggestedRules).then(
                (file) => write(style.dim(`  saved ${request.suggestedRules.join(", ")} to ${file}\n`)),
                (error: Error) => warn(error.message),
              );
            }
            return answer;
          },
          askTrust: (question) => askTrust(question, { input, write, style }),
          onWarning: warn,
          approveHooks: (file) => askApproveHooks(file, { input, write, style }),
          mcp: {
            approve: createMcpApprovalQuestion({ input, write, style }),
            oauth: createMcpOAuth({
              home: io.home,
              interactive: true,
              ...(io.env.BROWSER ? { browser: io.env.BROWSER } : {}),
              onMessage: (m) => write(`${m}\n`),
            }),
          },
        }),
      );
    /** `-r` alone and `/resume`: the sessions of this folder, and the one the user picks (undefined: none). */
    const pick = async (): Promise<string | undefined> => {
      const sessions = listProjectSessions(io, (path, why) => warn(`${path} left out: ${why}`));
      write(`${formatSessionList(sessions, style)}\n`);
      if (sessions.length === 0) return undefined;
      for (;;) {
        const answer = await input.read("resume which? (number or id; Enter for none) ");
        if (answer === undefined || answer.trim() === "") return undefined;
        const chosen = pickSession(sessions, answer);
        if (chosen) return chosen.path;
        write(style.red(`no session "${answer.trim()}" in the list\n`));
      }
    };
    let startWith = options;
    if (options.pickSession) {
      const path = await pick();
      startWith = path ? { ...options, resume: path, continueSession: false } : options;
    }
    let agent = await open(startWith);
    write(banner(agent, io.cwd, style, agent.history.length));
    // `-c` / `-r`: the last exchanges again, so the conversation picks up where it was left.
    write(resumedRecap(agent.history, style));

    const onSignal = () => {
      stopRun();
      input.close();
    };
    io.signal?.addEventListener("abort", onSignal, { once: true });

    try {
      let first = options.prompt?.trim() ? options.prompt : undefined;
      if (first !== undefined) write(`> ${first}\n`);
      for (;;) {
        const line = first ?? (await input.read("> "));
        first = undefined;
        if (line === undefined || io.signal?.aborted) break;
        emptyInterrupts = 0;
        // A built-in that calls the model (/compact) is stopped by Ctrl-C like a run.
        run = new AbortController();
        const modelSwitch = /^\/model(?:\s+(\S+))?\s*$/.exec(line.trim());
        if (modelSwitch) {
          const spec = modelSwitch[1];
          if (!spec) {
            write(`model: ${agent.provider.api}:${agent.model} (/model provider:model switches)\n`);
            continue;
          }
          // The conversation goes on with the other model: the same session file, its history and system.
          const path = agent.sessionPath;
          const thinkingBefore = agent.thinkingBudget;
          const chosen = { ...options, model: spec, continueSession: false, pickSession: false };
          await agent.close();
          try {
            agent = await open(path ? { ...chosen, resume: path } : chosen);
            agent.setThinking(thinkingBefore);
            options = chosen;
            write(
              style.dim(
                `now ${agent.provider.api}:${agent.model}; the prompt cache starts over (a model reads only its own cache)\n`,
              ),
            );
          } catch (error) {
            write(style.red(`✖ ${error instanceof Error ? error.message : String(error)}\n`));
            agent = await open(
              path ? { ...options, resume: path, continueSession: false, pickSession: false } : options,
            );
          }
          continue;
        }
        const thinkingSwitch = /^\/thinking(?:\s+(\S+))?\s*$/.exec(line.trim());
        if (thinkingSwitch) {
          const arg = thinkingSwitch[1];
          const budget =
            arg === "off"
              ? undefined
              : arg === undefined
                ? agent.thinkingBudget === undefined
                  ? DEFAULT_THINKING_BUDGET
                  : undefined
                : Number(arg);
          try {
            agent.setThinking(budget);
            write(
              style.dim(
                budget === undefined
                  ? "thinking off\n"
                  : `thinking on, budget ${budget} tokens (on models that have it); the cached messages are read again from the next request\n`,
              ),
            );
          } catch (error) {
            write(style.red(`✖ ${error instanceof Error ? error.message : String(error)}\n`));
          }
          continue;
        }
        if (/^\/rewind\s*$/.test(line.trim())) {
          await rewind(agent, { input, write, style });
          continue;
        }
        if (/^\/resume\s*$/.test(line.trim())) {
          const path = await pick();
          if (path) {
            const next = await open({ ...options, resume: path, continueSession: false, pickSession: false });
            await agent.close();
            agent = next;
            write(banner(agent, io.cwd, style, agent.history.length));
          }
          continue;
        }
        const text = await promptText(line, {
          agent,
          style,
          write,
          clear: () => agent.clear(),
          signal: run.signal,
          ...(io.stdout.isTTY === true ? { clearScreen: () => write("\x1b[2J\x1b[3J\x1b[H") } : {}),
        }).finally(() => {
          run = undefined;
        });
        if (text === "exit") break;
        if (text === undefined) continue;

        run = new AbortController();
        const prepared = text.fromServer
          ? { prompt: text.text }
          : await preparePrompt(agent, text.text, text.invocation, {
              cwd: io.cwd,
              signal: run.signal,
            });
        if ("error" in prepared) {
          run = undefined;
          write(style.red(`${stripControls(prepared.error)}\n`));
          continue;
        }
        const render = renderer(
          agent,
          style,
          output,
          io.stdout,
          options.verbose,
          options.hideThinking === true,
          markdown ? await markdown : undefined,
          io.env,
        );
        const startedAt = Date.now();
        // Every run hands back a valid transcript, also an interrupted or failed one: the next prompt extends it.
        const result = await drain(
          agent.prompt(prepared.prompt, {
            signal: run.signal,
            ...(prepared.model ? { model: prepared.model } : {}),
          }),
          render,
        ).finally(() => {
          run = undefined;
        });
        const shells = runningShellsLine(
          agent.shells.running(),
          style,
          (io.stdout as NodeJS.WriteStream).columns,
        );
        if (shells) write(`${shells}\n`);
        if (!output.atLineStart) write("\n");
        write(`${turnFooter(result.usage, Date.now() - startedAt, style)}\n`);
        if (input.closed) break;
        write(`${style.dim(sessionStatus(agent))}\n`);
      }
    } finally {
      io.signal?.removeEventListener("abort", onSignal);
      await agent.close();
    }
    write("\n");
    return io.signal?.aborted || leftDuringRun ? 130 : 0;
  } finally {
    input.close();
  }
}

/**
 * What a typed line asks for: the text to send, or the command or skill it invokes (expanded by
 * `preparePrompt`, with no model call for the expansion), "exit", or undefined when nothing is to be sent
 * (empty, a built-in, an error).
 */
async function promptText(
  line: string,
  context: Parameters<typeof runBuiltinCommand>[1],
): Promise<
  | { text: string; invocation?: { target: Skill | Command; args: string }; fromServer?: boolean }
  | "exit"
  | undefined
> {
  const text = line.trim();
  if (text === "") return undefined;
  const slash = parseSlash(text);
  if (!slash) return { text };
  const builtin = await runBuiltinCommand(slash.name, context, slash.args);
  if (builtin === "exit") return "exit";
  if (builtin === "done") return undefined;
  const expansion = context.agent.expandSlash(text);
  if (expansion.kind === "mcp-prompt") {
    // Expanded by the server, and sent as it is (no @file or !command expansion of a server's text).
    try {
      return { text: await expansion.expand(), fromServer: true };
    } catch (error) {
      context.write(context.style.red(`${stripControls((error as Error).message)}\n`));
      return undefined;
    }
  }
  const target = findSlashTarget(slash.name, context.agent.skills);
  if (!target) {
    context.write(context.style.red(`unknown command /${slash.name}; /help lists the commands and skills\n`));
    return undefined;
  }
  return { text, invocation: { target, args: slash.args } };
}

/** Feeds a run's events to `onEvent` and resolves with its result. */
async function drain<E, R>(run: AsyncGenerator<E, R>, onEvent: (event: E) => void): Promise<R> {
  for (;;) {
    const next = await run.next();
    if (next.done) return next.value;
    onEvent(next.value);
  }
}

function renderer(
  agent: CodingAgent,
  style: Style,
  output: HeldOutput,
  stdout: InteractiveIo["stdout"],
  verbose: boolean,
  hideThinking: boolean,
  markdown: typeof import("./markdown/index.js") | undefined,
  env: NodeJS.ProcessEnv,
) {
  const columns = () => (stdout as NodeJS.WriteStream).columns;
  const text = (write: (text: string) => void, liveStatus: boolean) =>
    createTextRenderer({
      write,
      hideThinking,
      // A running command's last line, kept off a permission question by the held output.
      liveStatus,
      writeStatus: output.status,
      columns,
      style,
      ...(markdown
        ? {
            markdown: (write: (text: string) => void) =>
              new markdown.MarkdownWriter({
                write,
                // One cell spare: a line that fills the last column wraps on some terminals.
                width: () => (columns() ?? 80) - 1,
                color: style.enabled,
                hyperlinks: markdown.supportsHyperlinks(env),
              }),
          }
        : {}),
      summarize: (block) => agent.summarize(block),
      showsInputLive: (name) => agent.tools.some((t) => t.name === name && t.eagerInputStreaming === true),
      errorHint: (error) => errorHint(error, agent.providerName),
    });
  return createSubagentRenderer({
    render: text(output.write, stdout.isTTY === true),
    style,
    summarize: (block) => agent.summarize(block),
    verbose,
    live: stdout.isTTY === true,
    write: output.write,
    childRenderer: (write) => text(write, false),
  });
}

function banner(agent: CodingAgent, cwd: string, style: Style, resumed: number): string {
  const sandbox = agent.sandbox
    ? ` · Bash sandboxed${agent.sandbox.allowNetwork ? " (network allowed)" : " (no network)"}`
    : "";
  const head = `${style.bold("mitsu")} ${packageVersion()} ${style.dim(`· ${agent.provider.api}:${agent.model} · ${cwd}${sandbox}`)}`;
  const more = resumed > 0 ? `; resumed ${resumed} messages` : "";
  const { mode, origin } = agent.permissionMode;
  const permissions = `permission mode: ${mode} (from ${origin})${agent.trusted ? "" : "; folder not trusted"}`;
  return `${head}\n${style.dim(permissions)}\n${style.dim(`/help for commands, Ctrl-C stops a run, Ctrl-D exits${more}`)}\n`;
}
