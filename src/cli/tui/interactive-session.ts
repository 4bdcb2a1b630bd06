import type { SlashCommand } from "@mariozechner/pi-tui";
import { type CodingAgent, createCodingAgent, listProjectSessions } from "../../harness/index.js";
import { createMcpOAuth } from "../../mcp/index.js";
import type { PermissionMode } from "../../permissions/index.js";
import { type Command, findSlashTarget, parseSlash, type Skill } from "../../skills/index.js";
import { agentOptionsFor } from "../agent-options.js";
import { type CliOptions, DEFAULT_THINKING_BUDGET } from "../cli-options.js";
import { BUILTIN_COMMANDS, runBuiltinCommand } from "../conversation/builtin-commands.js";
import { preparePrompt } from "../conversation/prepare-prompt.js";
import { formatSessionList } from "../conversation/session-list.js";
import { sessionStatus } from "../conversation/session-status.js";
import { runningShellsLine } from "../conversation/shells-status.js";
import { finishedPrompt } from "../conversation/with-background-agents.js";
import type { Style } from "../render/style.js";
import { showControls, stripControls } from "../render/terminal-text.js";
import { packageVersion } from "../version.js";
import { bangContext, runBangCommand } from "./bang-command.js";
import { confirmForeignSession } from "./confirm-foreign-session.js";
import { conversationRenderer } from "./conversation-renderer.js";
import type { InteractiveIo } from "./interactive-io.js";
import { modelChoices } from "./model-choices.js";
import { createPermissionDialog } from "./permission-question.js";
import { pluginApprovalQuestion } from "./plugin-approval-question.js";
import { resumedRecap } from "./resumed-recap.js";
import { rewind } from "./rewind-command.js";
import type { Screen } from "./screen.js";
import { sessionItems } from "./session-items.js";
import { slashOutputStyle } from "./slash-output-style.js";
import { slashPlugin } from "./slash-plugin.js";
import { readStatusLineSetting, runStatusLine, statusLineInput } from "./status-line-command.js";
import { terminalAsker } from "./terminal-asker.js";
import { turnFooter } from "./turn-footer.js";

/** The conversation's state at the terminal, shared by the steps below. */
interface TerminalSession {
  agent: CodingAgent;
  options: CliOptions;
  /** The run (or the built-in that calls the model) now going: Ctrl-C stops it. */
  run: AbortController | undefined;
  emptyInterrupts: number;
  /** The question after a refusal, while it waits: Esc withdraws it. */
  insteadRead: AbortController | undefined;
  /** Ctrl-D (the input ends) during a run: the user is leaving, so the run stops too, and mitsu exits 130. */
  leftDuringRun: boolean;
  /** When Esc was last pressed at an empty prompt (two in a row open /rewind). */
  lastEscape: number;
  /**
   * The permission mode the agent started in (its flags and settings'), before the conversation's mode went on in
   * it: started in bypassPermissions, Shift-Tab's cycle keeps that mode.
   */
  startedIn: PermissionMode | undefined;
  /** What `!cmd` ran since the last prompt: sent with the next one. */
  bangOutputs: string[];
}

/** What the steps of the conversation use: the terminal and how to open an agent. */
interface TerminalEnv {
  io: InteractiveIo;
  screen: Screen;
  style: Style;
  write: (text: string) => void;
  open: (chosen: CliOptions) => Promise<CodingAgent>;
  /** `-r` alone and `/resume`: the session the user picks (undefined: none). */
  pick: () => Promise<string | undefined>;
  markdown: Promise<Awaited<typeof import("../render/markdown/index.js")> | undefined>;
  /** Redraws the status line: the session's, or the settings' `statusLine` command's first line. */
  footer: () => void;
}

/**
 * The conversation at the terminal, on a screen already shown (see `interactiveMode`, which loads this module
 * once the editor is up). Prompts typed before the agent is open wait in the queue. The harness's questions are
 * answered by the terminal's dialogs, through its one question seam (`terminalAsker`).
 */
export async function interactiveSession(
  given: CliOptions,
  io: InteractiveIo,
  screen: Screen,
  style: Style,
  setCommands: (commands: () => SlashCommand[]) => void,
): Promise<number> {
  const session: TerminalSession = {
    // Set once the agent is open.
    agent: undefined as unknown as CodingAgent,
    options: given,
    run: undefined,
    emptyInterrupts: 0,
    insteadRead: undefined,
    leftDuringRun: false,
    lastEscape: 0,
    startedIn: undefined,
    bangOutputs: [],
  };
  setCommands(() => slashCommands(session.agent));
  // The answers are drawn as Markdown; the renderer loads while the agent opens. (One that fails to load leaves
  // the text raw.)
  const markdown = import("../render/markdown/index.js").catch(() => undefined);
  const write = (text: string) => screen.write(text);
  // On the screen, not stderr: a write beside the screen's would tear its drawing.
  const warn = (message: string) => write(`${style.yellow("⚠")} ${stripControls(message)}\n`);
  const input = screen.input;
  try {
    const permissions = createPermissionDialog(screen, { cwd: io.cwd, style });
    const stopRun = () => {
      session.run?.abort(new Error("interrupted"));
      permissions.cancel();
    };
    bindKeys(session, screen, style, stopRun, () => env.footer());
    const asker = terminalAsker(screen, permissions, style);
    const oauth = createMcpOAuth({
      home: io.home,
      interactive: true,
      ...(io.env.BROWSER ? { browser: io.env.BROWSER } : {}),
      onMessage: (m) => write(`${m}\n`),
    });
    const env: TerminalEnv = {
      io,
      screen,
      style,
      write,
      open: (chosen) =>
        openAgent(chosen).then((opened) => {
          session.startedIn = opened.permissionMode.mode;
          // The mode the user (Shift-Tab) or an approved plan left the last conversation in goes on.
          const previous = session.agent?.permissionMode.mode;
          if (previous !== undefined && previous !== opened.permissionMode.mode)
            opened.permissions.setMode(previous);
          return opened;
        }),
      pick: () => pickSession(io, screen, style, warn),
      markdown,
      footer: () => screen.setFooter(statusWithMode(session)),
    };
    function openAgent(chosen: CliOptions): Promise<CodingAgent> {
      return createCodingAgent({
        ...agentOptionsFor(chosen, io, { onWarning: warn, mcp: { oauth } }),
        asker,
        approvePlugin: async (approval) => {
          const yes = await screen.ask(pluginApprovalQuestion(approval));
          write(
            style.dim(
              `plugin ${showControls(approval.id)}: ${yes ? "approved" : "its hooks and MCP servers not run"}\n`,
            ),
          );
          return yes;
        },
      });
    }
    let startWith = session.options;
    if (session.options.pickSession) {
      const path = await env.pick();
      startWith = path ? { ...session.options, resume: path, continueSession: false } : session.options;
    } else if (
      session.options.resume &&
      !(await confirmForeignSession(session.options.resume, { ...io, input, write, style }))
    ) {
      startWith = { ...session.options, resume: undefined };
    }
    session.agent = await env.open(startWith);
    write(banner(session.agent, io.cwd, style, session.agent.history.length));
    // `-c` / `-r`: the last exchanges again, so the conversation picks up where it was left.
    write(resumedRecap(session.agent.history, style));
    // The settings' `statusLine` command (Claude Code's), when there is one, draws the status line instead.
    const statusLine = await readStatusLineSetting(io.cwd, io.home);
    env.footer = () => {
      const agent = session.agent;
      screen.setFooter(statusWithMode(session));
      if (!statusLine) return;
      const at = { sessionId: agent.sessionId, cwd: io.cwd, model: agent.model, costUsd: agent.cost().usd };
      void runStatusLine(statusLine.command, statusLineInput({ ...at, version: packageVersion() }), io).then(
        (line) => {
          if (line) screen.setFooter(line);
        },
      );
    };
    env.footer();
    const onSignal = () => {
      stopRun();
      input.close();
    };
    io.signal?.addEventListener("abort", onSignal, { once: true });
    try {
      await converse(session, env);
    } finally {
      io.signal?.removeEventListener("abort", onSignal);
      // How to come back, as the last line on the terminal.
      if (session.agent.sessionId) {
        write(style.dim(`\nresume this conversation with: mitsu -r ${session.agent.sessionId}\n`));
      }
      await session.agent.close();
    }
    return io.signal?.aborted || session.leftDuringRun ? 130 : 0;
  } finally {
    input.close();
  }
}

/** Ctrl-C stops a run (or clears the line; twice at an empty prompt leaves); Esc takes queued prompts back. */
function bindKeys(
  session: TerminalSession,
  screen: Screen,
  style: Style,
  stopRun: () => void,
  showStatus: () => void,
): void {
  const { input } = screen;
  screen.onKeys({
    interrupt: () => {
      if (session.run) return stopRun();
      if (input.partialLine !== "") {
        session.emptyInterrupts = 0;
        return input.clearLine();
      }
      if (++session.emptyInterrupts >= 2) return input.close();
      screen.write(`${style.dim("(Ctrl-C again, Ctrl-D or /exit to leave)")}\n`);
    },
    escape: () => {
      if (session.insteadRead) return session.insteadRead.abort();
      // Queued prompts first: Esc takes them back to be edited (a second Esc stops the run).
      const queued = screen.queued.take();
      if (queued.length > 0) return screen.edit(queued.join("\n"));
      if (session.run) return stopRun();
      // Esc twice at an empty prompt: go back to an earlier prompt (/rewind), as in Claude Code.
      const now = Date.now();
      if (input.partialLine === "" && now - session.lastEscape < DOUBLE_ESCAPE_MS) {
        session.lastEscape = 0;
        return screen.submit("/rewind");
      }
      session.lastEscape = now;
    },
    cycleMode: () => {
      const { agent } = session;
      if (!agent) return;
      const order: PermissionMode[] = ["default", "acceptEdits", "plan"];
      if (session.startedIn === "bypassPermissions") order.push("bypassPermissions");
      // From the mode in force: Shift-Tab's, or the one ExitPlanMode or a hook's setMode switched to since.
      const next = order[(order.indexOf(agent.permissions.currentMode()) + 1) % order.length]!;
      agent.permissions.setMode(next);
      showStatus();
    },
  });
  screen.onClose(() => {
    // A run that Ctrl-C already stopped is over: leaving after it is leaving at the prompt.
    if (session.run && !session.run.signal.aborted) session.leftDuringRun = true;
    stopRun();
  });
}

/** The sessions of this folder, and the one the user picks from a searchable list (undefined: none; Esc). */
async function pickSession(
  io: InteractiveIo,
  screen: Screen,
  style: Style,
  warn: (message: string) => void,
): Promise<string | undefined> {
  const sessions = listProjectSessions(io, (path, why) => warn(`${path} left out: ${why}`));
  if (sessions.length === 0) {
    screen.write(`${formatSessionList(sessions, style)}\n`);
    return undefined;
  }
  // The first prompt as typed, how long ago, turns, cost.
  return screen.pick("Resume a conversation", sessionItems(sessions), undefined);
}

/** The status line, with the permission mode when it is not the default one (Shift-Tab cycles it). */
function statusWithMode(session: TerminalSession): string {
  const { agent } = session;
  const now = agent.permissions.currentMode();
  const shown = now === "default" ? "" : ` · ${MODE_NAMES[now]} (shift+tab to cycle)`;
  return `${sessionStatus(agent)}${shown}`;
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

/** Reads prompts and runs them until the user leaves. */
async function converse(session: TerminalSession, env: TerminalEnv): Promise<void> {
  const { io, screen, style, write } = env;
  const { input } = screen;
  let first = session.options.prompt?.trim() ? session.options.prompt : undefined;
  for (;;) {
    // Idle at an empty prompt when a background agent finishes: a turn says so (its answer rides in on it).
    const idle = first === undefined ? whenBackgroundAgentFinishes(session.agent, input) : undefined;
    const line = first ?? (await input.read("> ", idle ? { signal: idle.signal } : {}));
    idle?.dispose();
    first = undefined;
    if (line === undefined && idle?.signal.aborted && !input.closed && !io.signal?.aborted) {
      const finished = session.agent.backgroundAgents?.undelivered() ?? [];
      if (finished.length === 0) continue;
      const prompt = finishedPrompt(finished);
      screen.setFooter(sessionStatus(session.agent));
      write(`${screen.atLineStart ? "" : "\n"}${style.dim(`● ${prompt}`)}\n`);
      const next = await turn({ text: prompt, fromServer: true }, session, env);
      if (next === "exit") break;
      if (next !== undefined) first = next;
      continue;
    }
    if (line === undefined || io.signal?.aborted) break;
    session.emptyInterrupts = 0;
    write(`${screen.atLineStart ? "" : "\n"}${echoPrompt(line, style)}`);
    if (line.trim() !== "" && !/^\/exit\s*$/.test(line.trim())) screen.remember(line);
    // A built-in that calls the model (/compact) is stopped by Ctrl-C like a run.
    session.run = new AbortController();
    if (await sessionCommand(line.trim(), session, env)) {
      session.run = undefined;
      continue;
    }
    if (line.trim().startsWith("!")) {
      await bangCommand(line.trim().slice(1).trim(), session, env);
      continue;
    }
    const text = await promptText(line, {
      agent: session.agent,
      style,
      write,
      clear: () => session.agent.clear(),
      signal: session.run.signal,
      ...(io.stdout.isTTY === true ? { clearScreen: () => screen.clear() } : {}),
      plugin: (words) => slashPlugin(words, io, write, style),
      outputStyle: (args) => slashOutputStyle(args, io, write, style),
    }).finally(() => {
      session.run = undefined;
    });
    if (text === "exit") break;
    if (text === undefined) continue;
    const next = await turn(text, session, env);
    if (next === "exit") break;
    if (next !== undefined) first = next;
  }
}

/**
 * The commands that change the session itself: /model, /thinking, /rewind, /resume. Returns whether the line was
 * one of them.
 */
async function sessionCommand(line: string, session: TerminalSession, env: TerminalEnv): Promise<boolean> {
  const { style, write } = env;
  const modelSwitch = /^\/model(?:\s+(\S+))?\s*$/.exec(line);
  if (modelSwitch) {
    await switchModel(modelSwitch[1], session, env);
    return true;
  }
  const thinkingSwitch = /^\/thinking(?:\s+(\S+))?\s*$/.exec(line);
  if (thinkingSwitch) {
    switchThinking(thinkingSwitch[1], session.agent, env);
    return true;
  }
  if (/^\/rewind\s*$/.test(line)) {
    await rewind(session.agent, { input: env.screen.input, write, style });
    return true;
  }
  if (/^\/resume\s*$/.test(line)) {
    const path = await env.pick();
    if (path) {
      const chosen = { ...session.options, resume: path, continueSession: false, pickSession: false };
      const next = await env.open(chosen);
      await session.agent.close();
      session.agent = next;
      write(banner(session.agent, env.io.cwd, style, session.agent.history.length));
      write(resumedRecap(session.agent.history, style));
      env.footer();
    }
    return true;
  }
  return false;
}

/** `/model [spec]`: names the model, or goes on with another one (the same session file, its history and system). */
async function switchModel(
  spec: string | undefined,
  session: TerminalSession,
  env: TerminalEnv,
): Promise<void> {
  const { style, write } = env;
  const { agent } = session;
  const current = `${agent.providerName}:${agent.model}`;
  // Without a name: a list of the configured providers' models to pick from.
  const picked =
    spec ??
    (await env.screen.pick(
      `Switch the model (now ${current})`,
      modelChoices(env.io.env, env.io.home, current).map((choice) => ({ label: choice, value: choice })),
      undefined,
    ));
  // Picked from the list, the model in use is no switch; named, it opens the agent again (as before).
  if (!picked || (spec === undefined && picked === current)) {
    write(`model: ${current} (/model provider:model switches)\n`);
    return;
  }
  spec = picked;
  const path = agent.sessionPath;
  const thinkingBefore = agent.thinkingBudget;
  const chosen = { ...session.options, model: spec, continueSession: false, pickSession: false };
  await agent.close();
  try {
    session.agent = await env.open(path ? { ...chosen, resume: path } : chosen);
    session.agent.setThinking(thinkingBefore);
    session.options = chosen;
    write(
      style.dim(
        `now ${session.agent.provider.api}:${session.agent.model}; the prompt cache starts over (a model reads only its own cache)\n`,
      ),
    );
    env.footer();
  } catch (error) {
    write(style.red(`✖ ${error instanceof Error ? error.message : String(error)}\n`));
    const { options } = session;
    session.agent = await env.open(
      path ? { ...options, resume: path, continueSession: false, pickSession: false } : options,
    );
  }
}

/** `/thinking [budget|off]`: turns extended thinking on (with a budget) or off, from the next request. */
function switchThinking(arg: string | undefined, agent: CodingAgent, env: TerminalEnv): void {
  const { style, write } = env;
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
}

/**
 * One prompt through the agent, drawn as it streams, with its footer. Returns "exit" when the input closed, the
 * user's answer to "what instead?" after a refused call (the next prompt), or undefined.
 */
async function turn(
  text: Exclude<Awaited<ReturnType<typeof promptText>>, "exit" | undefined>,
  session: TerminalSession,
  env: TerminalEnv,
): Promise<string | "exit" | undefined> {
  const { io, screen, style, write } = env;
  const { agent } = session;
  const run = new AbortController();
  session.run = run;
  const prepared = text.fromServer
    ? { prompt: text.text }
    : await preparePrompt(agent, text.text, text.invocation, { cwd: io.cwd, signal: run.signal });
  if ("error" in prepared) {
    session.run = undefined;
    write(style.red(`${stripControls(prepared.error)}\n`));
    return undefined;
  }
  // What the user ran with `!` since the last prompt goes first: the model sees it and what came of it.
  if (session.bangOutputs.length > 0) {
    const before = session.bangOutputs.splice(0).join("\n");
    prepared.prompt =
      typeof prepared.prompt === "string"
        ? `${before}\n\n${prepared.prompt}`
        : [{ type: "text", text: before }, ...prepared.prompt];
  }
  const render = conversationRenderer(agent, style, screen, io, session.options, await env.markdown);
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
    session.run = undefined;
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
  if (screen.input.closed) return "exit";
  env.footer();
  if (result.reason !== "denied") return undefined;
  // The user said no to a call: the model waits for what to do instead, and their answer is the next prompt
  // (Esc or an empty answer: back to the prompt, nothing sent).
  session.insteadRead = new AbortController();
  // A prompt queued during the refused turn is that answer: the user already said what next.
  const instead = await screen.input.read("? What should mitsu do instead? (Esc: back to the prompt)", {
    signal: session.insteadRead.signal,
  });
  session.insteadRead = undefined;
  if (instead === undefined && screen.input.closed) return "exit";
  return instead !== undefined && instead.trim() !== "" ? instead : undefined;
}

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

/** Aborts when a background agent of `agent` ends while nothing is typed at the prompt; `dispose` stops watching. */
function whenBackgroundAgentFinishes(
  agent: CodingAgent,
  input: { readonly partialLine: string },
): { signal: AbortSignal; dispose: () => void } | undefined {
  const agents = agent.backgroundAgents;
  if (!agents) return undefined;
  const controller = new AbortController();
  const fire = () => {
    if (input.partialLine.trim() === "") controller.abort();
  };
  const off = agents.onFinished(fire);
  // One that ended during the last turn, after its last request, and whose answer no request carried yet.
  if (agents.undelivered().length > 0) queueMicrotask(fire);
  return { signal: controller.signal, dispose: off };
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

/** `!command`: runs the user's own shell command; its output is shown, and sent with the next prompt. */
async function bangCommand(command: string, session: TerminalSession, env: TerminalEnv): Promise<void> {
  const { io, screen, style, write } = env;
  const run = session.run;
  if (command === "" || !run) {
    session.run = undefined;
    return;
  }
  screen.indicator.start("Running");
  const result = await runBangCommand(command, {
    cwd: io.cwd,
    env: session.agent.childEnv,
    signal: run.signal,
  }).finally(() => {
    session.run = undefined;
    screen.indicator.stop();
  });
  const output = `${result.stdout}${result.stderr}`.trimEnd();
  if (output !== "") write(`${stripControls(output)}\n`);
  if (result.code !== 0) {
    write(style.dim(result.code === null ? "(stopped)\n" : `(exit code ${result.code})\n`));
  }
  session.bangOutputs.push(bangContext(command, result));
}
