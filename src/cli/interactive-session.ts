import type { SlashCommand } from "@mariozechner/pi-tui";
import { type CodingAgent, createCodingAgent, listProjectSessions } from "../harness/index.js";
import { createMcpOAuth } from "../mcp/index.js";
import type { PermissionMode } from "../permissions/index.js";
import { saveLocalAllowRules } from "../permissions/save-local-rules.js";
import { type Command, findSlashTarget, parseSlash, type Skill } from "../skills/index.js";
import { agentOptionsFor } from "./agent-options.js";
import { bangContext, runBangCommand } from "./bang-command.js";
import { BUILTIN_COMMANDS, runBuiltinCommand } from "./builtin-commands.js";
import { type CliOptions, DEFAULT_THINKING_BUDGET } from "./cli-options.js";
import type { InteractiveIo } from "./interactive-io.js";
import { modelChoices } from "./model-choices.js";
import { preparePrompt } from "./prepare-prompt.js";
import { resumedRecap } from "./resumed-recap.js";
import { rewind } from "./rewind-command.js";
import { formatSessionList, sessionItems } from "./session-list.js";
import { sessionStatus } from "./session-status.js";
import { runningShellsLine } from "./shells-status.js";
import type { Style } from "./style.js";
import { showControls, stripControls } from "./terminal-text.js";
import { conversationRenderer } from "./tui/conversation-renderer.js";
import { hooksApprovalQuestion } from "./tui/hooks-approval-question.js";
import { mcpApprovalQuestion } from "./tui/mcp-approval-question.js";
import { createPermissionDialog } from "./tui/permission-question.js";
import type { Screen } from "./tui/screen.js";
import { trustQuestion } from "./tui/trust-question.js";
import { turnFooter } from "./turn-footer.js";
import { packageVersion } from "./version.js";

/**
 * The conversation at the terminal, on a screen already shown (see `interactiveMode`, which loads this module
 * once the editor is up). Prompts typed before the agent is open wait in the queue.
 */
export async function interactiveSession(
  given: CliOptions,
  io: InteractiveIo,
  screen: Screen,
  style: Style,
  setCommands: (commands: () => SlashCommand[]) => void,
): Promise<number> {
  let options = given;
  // Set once the agent is open.
  let agent!: CodingAgent;
  setCommands(() => slashCommands(agent));
  // The answers are drawn as Markdown; the renderer loads while the agent opens. (One that fails to load leaves
  // the text raw.)
  const markdown = import("./markdown/index.js").catch(() => undefined);
  const write = (text: string) => screen.write(text);
  // On the screen, not stderr: a write beside the screen's would tear its drawing.
  const warn = (message: string) => write(`${style.yellow("⚠")} ${stripControls(message)}\n`);
  const input = screen.input;
  try {
    const permissions = createPermissionDialog(screen, { cwd: io.cwd, style });
    let run: AbortController | undefined;
    const stopRun = () => {
      run?.abort(new Error("interrupted"));
      permissions.cancel();
    };
    let emptyInterrupts = 0;
    /** The question after a refusal, while it waits: Esc withdraws it. */
    let insteadRead: AbortController | undefined;
    screen.onKeys({
      interrupt: () => {
        if (run) return stopRun();
        if (input.partialLine !== "") {
          emptyInterrupts = 0;
          return input.clearLine();
        }
        if (++emptyInterrupts >= 2) return input.close();
        write(`${style.dim("(Ctrl-C again, Ctrl-D or /exit to leave)")}\n`);
      },
      escape: () => {
        if (insteadRead) return insteadRead.abort();
        // Queued prompts first: Esc takes them back to be edited (a second Esc stops the run).
        const queued = screen.queued.take();
        if (queued.length > 0) return screen.edit(queued.join("\n"));
        if (run) return stopRun();
        // Esc twice at an empty prompt: go back to an earlier prompt (/rewind), as in Claude Code.
        const now = Date.now();
        if (input.partialLine === "" && now - lastEscape < DOUBLE_ESCAPE_MS) {
          lastEscape = 0;
          return screen.submit("/rewind");
        }
        lastEscape = now;
      },
      cycleMode: () => {
        if (!agent) return;
        const order: PermissionMode[] = ["default", "acceptEdits", "plan"];
        if (agent.permissionMode.mode === "bypassPermissions") order.push("bypassPermissions");
        const next = order[(order.indexOf(mode ?? agent.permissionMode.mode) + 1) % order.length]!;
        mode = next;
        agent.permissions.setMode(next);
        showStatus();
      },
    });
    let lastEscape = 0;
    /** The permission mode Shift-Tab chose (undefined: the one the agent started in); kept when the agent reopens. */
    let mode: PermissionMode | undefined;
    const showStatus = () => {
      const now = mode ?? agent.permissionMode.mode;
      const shown = now === "default" ? "" : ` · ${MODE_NAMES[now]} (shift+tab to cycle)`;
      screen.setFooter(`${sessionStatus(agent)}${shown}`);
    };
    /** What `!cmd` ran since the last prompt: sent with the next one. */
    const bangOutputs: string[] = [];
    /** Ctrl-D (the input ends) during a run: the user is leaving, so the run stops too, and mitsu exits 130. */
    let leftDuringRun = false;
    screen.onClose(() => {
      // A run that Ctrl-C already stopped is over: leaving after it is leaving at the prompt.
      if (run && !run.signal.aborted) leftDuringRun = true;
      stopRun();
    });
    /** A "no" to the trust question holds for this mitsu: /resume and /clear open the agent again, not the question. */
    let trustDeclined = false;
    const open = (chosen: CliOptions) =>
      openAgent(chosen).then((opened) => {
        if (mode !== undefined) opened.permissions.setMode(mode);
        return opened;
      });
    const openAgent = (chosen: CliOptions) =>
      createCodingAgent(
        agentOptionsFor(chosen, io, {
          ask: async (request) => {
            const answer = await permissions.ask(request);
            // "Always" lasts beyond this session, as in Claude Code: the rules go to the project's local settings.
            if (answer === "allow_always" && request.suggestedRules.length > 0) {
              await saveLocalAllowRules(io.cwd, request.suggestedRules, { home: io.home }).then(
                (file) => write(style.dim(`  saved ${request.suggestedRules.join(", ")} to ${file}\n`)),
                (error: Error) => warn(error.message),
              );
            }
            return answer;
          },
          askTrust: async (question) => {
            if (trustDeclined) return false;
            const yes = await screen.ask(trustQuestion(question, style));
            trustDeclined = !yes;
            write(style.dim(`${yes ? "trusted" : "not trusted"}: ${showControls(question.folder)}\n`));
            return yes;
          },
          onWarning: warn,
          approveHooks: async (file) => {
            const yes = await screen.ask(hooksApprovalQuestion(file));
            write(style.dim(`hooks of ${showControls(file.file)}: ${yes ? "approved" : "not run"}\n`));
            return yes;
          },
          mcp: {
            approve: async (entry) => {
              const answer = await screen.ask(mcpApprovalQuestion(entry, style));
              const said =
                answer === "approve" ? "started" : answer === "deny" ? "never started here" : "skipped";
              write(style.dim(`MCP server ${showControls(entry.name)}: ${said}\n`));
              return answer;
            },
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
      if (sessions.length === 0) {
        write(`${formatSessionList(sessions, style)}\n`);
        return undefined;
      }
      // A searchable list: the first prompt as typed, how long ago, turns, cost (Esc: none).
      return screen.pick("Resume a conversation", sessionItems(sessions), undefined);
    };
    let startWith = options;
    if (options.pickSession) {
      const path = await pick();
      startWith = path ? { ...options, resume: path, continueSession: false } : options;
    }
    agent = await open(startWith);
    write(banner(agent, io.cwd, style, agent.history.length));
    // `-c` / `-r`: the last exchanges again, so the conversation picks up where it was left.
    write(resumedRecap(agent.history, style));
    showStatus();

    const onSignal = () => {
      stopRun();
      input.close();
    };
    io.signal?.addEventListener("abort", onSignal, { once: true });

    try {
      let first = options.prompt?.trim() ? options.prompt : undefined;
      for (;;) {
        const line = first ?? (await input.read("> "));
        first = undefined;
        if (line === undefined || io.signal?.aborted) break;
        emptyInterrupts = 0;
        write(`${screen.atLineStart ? "" : "\n"}${echoPrompt(line, style)}`);
        if (line.trim() !== "" && !/^\/exit\s*$/.test(line.trim())) screen.remember(line);
        // A built-in that calls the model (/compact) is stopped by Ctrl-C like a run.
        run = new AbortController();
        const modelSwitch = /^\/model(?:\s+(\S+))?\s*$/.exec(line.trim());
        if (modelSwitch) {
          const current = `${agent.providerName}:${agent.model}`;
          // Without a name: a list of the configured providers' models to pick from.
          const spec =
            modelSwitch[1] ??
            (await screen.pick(
              `Switch the model (now ${current})`,
              modelChoices(io.env, io.home, current).map((choice) => ({ label: choice, value: choice })),
              undefined,
            ));
          // Picked from the list, the model in use is no switch; named, it opens the agent again (as before).
          if (!spec || (modelSwitch[1] === undefined && spec === current)) {
            write(`model: ${current} (/model provider:model switches)\n`);
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
            showStatus();
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
            write(resumedRecap(agent.history, style));
            showStatus();
          }
          continue;
        }
        const bang = /^!([\s\S]*)$/.exec(line.trim());
        if (bang) {
          const command = bang[1]!.trim();
          if (command === "") {
            run = undefined;
            continue;
          }
          screen.indicator.start("Running");
          const result = await runBangCommand(command, {
            cwd: io.cwd,
            env: agent.childEnv,
            signal: run.signal,
          }).finally(() => {
            run = undefined;
            screen.indicator.stop();
          });
          const output = `${result.stdout}${result.stderr}`.trimEnd();
          if (output !== "") write(`${stripControls(output)}\n`);
          if (result.code !== 0) {
            write(style.dim(result.code === null ? "(stopped)\n" : `(exit code ${result.code})\n`));
          }
          bangOutputs.push(bangContext(command, result));
          continue;
        }
        const text = await promptText(line, {
          agent,
          style,
          write,
          clear: () => agent.clear(),
          signal: run.signal,
          ...(io.stdout.isTTY === true ? { clearScreen: () => screen.clear() } : {}),
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
        // What the user ran with `!` since the last prompt goes first: the model sees it and what came of it.
        if (bangOutputs.length > 0) {
          const before = bangOutputs.splice(0).join("\n");
          prepared.prompt =
            typeof prepared.prompt === "string"
              ? `${before}\n\n${prepared.prompt}`
              : [{ type: "text", text: before }, ...prepared.prompt];
        }
        const render = conversationRenderer(agent, style, screen, io, options, await markdown);
        const startedAt = Date.now();
        const usdBefore = agent.cost().usd;
        screen.indicator.start("Working");
        // Every run hands back a valid transcript, also an interrupted or failed one: the next prompt extends it.
        const result = await drain(
          agent.prompt(prepared.prompt, {
            signal: run.signal,
            ...(prepared.model ? { model: prepared.model } : {}),
          }),
          render,
        ).finally(() => {
          run = undefined;
          screen.indicator.stop();
          screen.status("");
          // Ended by agent-end already; a run that threw leaves no half-drawn block behind.
          screen.setTail(undefined);
        });
        const shells = runningShellsLine(agent.shells.running(), style, screen.width);
        if (shells) write(`${shells}\n`);
        if (!screen.atLineStart) write("\n");
        const usdAfter = agent.cost().usd;
        const turnUsd = usdAfter !== undefined ? usdAfter - (usdBefore ?? 0) : undefined;
        write(`${turnFooter(result.usage, Date.now() - startedAt, style, turnUsd)}\n`);
        if (input.closed) break;
        showStatus();
        if (result.reason === "denied") {
          // The user said no to a call: the model waits for what to do instead, and their answer is the next prompt
          // (Esc or an empty answer: back to the prompt, nothing sent).
          insteadRead = new AbortController();
          // A prompt queued during the refused turn is that answer: the user already said what next.
          const instead = await input.read("? What should mitsu do instead? (Esc: back to the prompt)", {
            signal: insteadRead.signal,
          });
          insteadRead = undefined;
          if (instead === undefined && input.closed) break;
          if (instead !== undefined && instead.trim() !== "") first = instead;
        }
      }
    } finally {
      io.signal?.removeEventListener("abort", onSignal);
      // How to come back, as the last line on the terminal.
      if (agent.sessionId) write(style.dim(`\nresume this conversation with: mitsu -r ${agent.sessionId}\n`));
      await agent.close();
    }
    return io.signal?.aborted || leftDuringRun ? 130 : 0;
  } finally {
    input.close();
  }
}

/** Two Esc presses this close at an empty prompt open /rewind. */
const DOUBLE_ESCAPE_MS = 800;

/** The permission modes as the status line names them. */
const MODE_NAMES: Record<PermissionMode, string> = {
  default: "default mode",
  acceptEdits: "⏵⏵ accept edits on",
  plan: "⏸ plan mode on",
  bypassPermissions: "bypass permissions on",
};

/** A sent prompt as the conversation shows it: `> ` before its first line, its other lines indented. */
function echoPrompt(prompt: string, style: Style): string {
  const lines = stripControls(prompt).split("\n");
  return `${lines.map((l, i) => `${i === 0 ? style.bold(">") : " "} ${l}`).join("\n")}\n`;
}

/**
 * What Tab completes after `/`: the built-ins, then the commands and skills a user can call. Names, descriptions
 * and hints come from the project's files and MCP servers: shown on one line, with no control sequences.
 */
function slashCommands(agent: CodingAgent | undefined): SlashCommand[] {
  const builtins = BUILTIN_COMMANDS.map(([name, description]) => ({ name, description }));
  if (!agent) return builtins;
  const { skills, commands } = agent.skills;
  const shown = (text: string) => stripControls(text).replace(/\s+/g, " ").slice(0, 120);
  const entries: Array<{
    name: string;
    description?: string | undefined;
    argumentHint?: string | undefined;
  }> = [...(agent.mcp?.servers.prompts ?? []), ...skills.filter((s) => s.userInvocable), ...commands];
  return [
    ...builtins,
    ...entries.map((entry) => ({
      name: shown(entry.name),
      ...(entry.description ? { description: shown(entry.description) } : {}),
      ...(entry.argumentHint ? { argumentHint: shown(entry.argumentHint) } : {}),
    })),
  ];
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
