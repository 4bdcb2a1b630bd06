import { StringDecoder } from "node:string_decoder";
import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import { killTagged } from "../process/process-tag.js";
import type { BackgroundShells } from "./background-shells.js";
import { CappedOutput } from "./capped-output.js";
import type { CommandTerminal } from "./file-access.js";
import { killProcessGroup, processGroupExists } from "./kill-process-group.js";
import type { SandboxOptions } from "./sandbox.js";
import { spawnCommand } from "./spawn-command.js";
import { SpillFiles } from "./spill-files.js";
import { ThrottledProgress } from "./throttled-progress.js";
import { truncateOutput } from "./truncate-output.js";

export interface BashInput {
  command: string;
  /** Milliseconds; default 120 000, at most 600 000. */
  timeout?: number;
  /** A short description of what the command does, for the user. */
  description?: string;
  /** Start it in the background (with `shells`): the call returns at once with the shell's id. */
  run_in_background?: boolean;
}

export interface BashToolOptions {
  /** Where commands start (each command starts there; `cd` does not carry over to the next call). */
  cwd: string;
  /** The environment commands start from, before provider API keys are dropped (`childEnv`). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** More variables to drop besides the known provider keys: e.g. the `apiKeyEnv` names of models.json. */
  secretEnv?: readonly string[];
  /**
   * Where full outputs are saved when the result had to be cut; created on first use (mode 0700) and deleted
   * when the process exits.
   */
  outputDir: string;
  /** Most bytes one saved output may take (its beginning and its end are kept). Default 64 MiB. */
  maxSpillBytes?: number;
  /** Most bytes all saved outputs may take together; the oldest are deleted past it. Default 256 MiB. */
  maxSpillTotalBytes?: number;
  /** The shell, run as `<shell> -c <command>`. Default `bash`. */
  shell?: string;
  /** Characters of output in the result (head and tail kept). Default 30 000. */
  maxOutputChars?: number;
  /** Time a process group gets between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  /** The session's background shells: with them, `run_in_background` is offered (see BashOutput, KillShell). */
  shells?: BackgroundShells;
  /** Run every command inside the bubblewrap sandbox (Linux); see `checkSandbox` to test it first. */
  sandbox?: SandboxOptions;
  /**
   * Runs foreground commands in an editor's terminal instead of a child process (not with `sandbox`: a sandboxed
   * command always runs under mitsu's own bubblewrap). See `CommandTerminal`.
   */
  terminal?: CommandTerminal;
}

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

/**
 * Runs a shell command in the workspace. Each command runs in its own process group (`detached`), so a
 * timeout or an abort stops everything it started, background jobs included; when the shell exits, any
 * process it left running in its group is stopped too, so no command leaves orphans behind; and should mitsu
 * itself die mid-command (even by `kill -9`), a watchdog stops the group (`watchProcessGroup`). Calls of one
 * turn may run concurrently (each has its own group); commands that must not overlap should be chained
 * in one call.
 */
export function createBashTool(options: BashToolOptions): Tool<BashInput> {
  const maxOutputChars = options.maxOutputChars ?? 30_000;
  const killGraceMs = options.killGraceMs ?? 2000;
  const defaultTimeout = options.defaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS;
  const maxTimeout = options.maxTimeoutMs ?? BASH_MAX_TIMEOUT_MS;
  const shell = options.shell ?? "bash";
  const spillFiles = new SpillFiles(options.outputDir, options.maxSpillTotalBytes);
  return {
    name: "Bash",
    description: [
      "Executes a bash command and returns its output (stdout and stderr interleaved) and its exit code.",
      "- It runs in the working folder; each call starts there again (cd does not carry over), so chain dependent steps with && in one call.",
      `- timeout is in milliseconds: default ${defaultTimeout} (${defaultTimeout / 60_000} minutes), at most ${maxTimeout}. On timeout, the command and every process it started are stopped.`,
      `- Output longer than ${maxOutputChars} characters is cut to its beginning and end; the whole output is then saved to a file whose path is given, which you can Read (with offset and limit) or Grep. A huge output is saved only in part (its first and last megabytes), so filter it in the command (grep, head, tail) rather than print it all.`,
      options.shells
        ? "- Processes left running in the background when the command ends are stopped. To start a long-lived process (a dev server, a watcher, a long build), pass run_in_background: true instead of using &: the call returns at once with a shell id; read its new output with BashOutput and stop it with KillShell. Do not sleep waiting for it; check its output when you need it."
        : "- Processes left running in the background when the command ends are stopped; this tool cannot start long-lived servers.",
      "- stdin is empty: interactive commands will not wait for input. Provider API keys are not in the environment.",
      ...(options.sandbox ? [sandboxNote(options.sandbox)] : []),
      "- Prefer Read, Edit, Write, Grep and Glob over cat, sed, echo >, grep and find: they are safer and their output is better suited to you.",
      "- description: a short phrase (5-10 words) saying what the command does, shown to the user.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        command: { type: "string", description: "The command to execute" },
        timeout: {
          type: "integer",
          minimum: 1,
          maximum: maxTimeout,
          description: `Timeout in milliseconds (default ${defaultTimeout}, max ${maxTimeout})`,
        },
        description: { type: "string", description: "What the command does, in 5-10 words" },
        ...(options.shells
          ? {
              run_in_background: {
                type: "boolean",
                description: "Run the command in the background and return at once with its shell id",
              },
            }
          : {}),
      },
      required: ["command"],
      additionalProperties: false,
    },
    permissionFacts: (input) => ({ command: input.command }),
    summarize: (input) => {
      const firstLine = input.command.split("\n")[0] ?? "";
      const cut =
        firstLine.length > 80 || input.command.includes("\n") ? `${firstLine.slice(0, 80)}…` : firstLine;
      return `Bash ${cut}${input.run_in_background ? " (background)" : ""}`;
    },
    async run(input, context) {
      if (input.command.trim() === "") throw new ToolError("command is empty.");
      if (context.signal.aborted) throw new ToolError("The command was aborted before it started.");
      const spawnOptions = {
        shell,
        cwd: options.cwd,
        env: options.env ?? process.env,
        secretEnv: options.secretEnv,
        sandbox: options.sandbox,
      };
      if (input.run_in_background) {
        if (!options.shells) throw new ToolError("run_in_background is not available here.");
        const started = options.shells.start(input.command, spawnOptions);
        return `Command running in the background with ID: ${started.id}. Read its new output with BashOutput (bash_id "${started.id}") and stop it with KillShell; it is stopped when the session ends, with everything it started. Its output is also written to ${started.logPath} (capped: its beginning and, once it ends, its last MiB; removed when the session ends).`;
      }
      const timeoutMs = Math.min(input.timeout ?? defaultTimeout, maxTimeout);
      if (options.terminal && !options.sandbox) {
        return runInTerminal(
          options.terminal,
          input.command,
          options.cwd,
          timeoutMs,
          maxOutputChars,
          context,
        );
      }
      const output = new CappedOutput({
        maxChars: maxOutputChars,
        openSpill: () => {
          const file = spillFiles.create();
          return { ...file, finish: (bytes: number) => spillFiles.finish(file.path, bytes) };
        },
        ...(options.maxSpillBytes !== undefined ? { maxSpillBytes: options.maxSpillBytes } : {}),
      });
      // The command waits at a gate until its group is registered with the watchdog (see spawnCommand).
      const { child, unwatch, tag } = spawnCommand(input.command, spawnOptions);
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
      const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")] as const;
      // What goes into the result is also reported as it arrives (throttled), so a long command shows its progress.
      const progress = new ThrottledProgress((text) => context.progress?.(text));
      let paused = false;
      const take = (text: string) => {
        // Back-pressure: while the saved copy cannot keep up, stop reading; the command then blocks on its
        // full pipe instead of mitsu buffering its output in memory.
        if (!output.push(text) && !paused) {
          paused = true;
          child.stdout.pause();
          child.stderr.pause();
          output.onDrain(() => {
            paused = false;
            child.stdout.resume();
            child.stderr.resume();
          });
        }
        progress.push(text);
      };
      child.stdout.on("data", (chunk: Buffer) => take(decoders[0].write(chunk)));
      child.stderr.on("data", (chunk: Buffer) => take(decoders[1].write(chunk)));

      let stoppedBy: "timeout" | "abort" | undefined;
      let stopped: Promise<void> = Promise.resolve();
      let leftovers = false;
      const pgid = child.pid;
      const stop = (reason: "timeout" | "abort") => {
        if (stoppedBy || pgid === undefined) return;
        stoppedBy = reason;
        stopped = killProcessGroup(pgid, killGraceMs).then(() => {
          // And what left the group (setsid): stopped means every process the command started.
          killTagged(tag);
          // Something outside the group may still hold the pipes open: stop waiting for them.
          child.stdout.destroy();
          child.stderr.destroy();
        });
      };
      const timer = setTimeout(() => stop("timeout"), timeoutMs);
      const onAbort = () => stop("abort");
      context.signal.addEventListener("abort", onAbort, { once: true });

      try {
        const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
          (resolve, reject) => {
            child.once("error", reject);
            child.once("exit", (code, signal) => resolve({ code, signal }));
          },
        ).catch((error: NodeJS.ErrnoException) => {
          throw new ToolError(`Cannot run the command with ${shell}: ${error.message}`);
        });
        // The shell is gone; what it left running in its group (`cmd &`) would outlive the call.
        if (pgid !== undefined && !stoppedBy && processGroupExists(pgid)) {
          leftovers = true;
          await killProcessGroup(pgid, killGraceMs);
        }
        // A process that left the group (setsid, a daemon: a build tool's server) may still hold the pipes: wait
        // a moment, then stop reading rather than until the timeout — the command itself has finished. It keeps
        // running (a daemon is meant to), until mitsu exits: the watchdog finds it by the command's tag.
        const detachedHolder = !(await settlesWithin(closed, PIPE_GRACE_MS));
        if (detachedHolder) {
          child.stdout.destroy();
          child.stderr.destroy();
        }
        await stopped;
        take(decoders[0].end());
        take(decoders[1].end());
        progress.close();
        const kept = await output.finish();
        return formatResult(kept, exit, { stoppedBy, leftovers, detachedHolder, timeoutMs });
      } finally {
        progress.close();
        clearTimeout(timer);
        context.signal.removeEventListener("abort", onAbort);
        unwatch();
      }
    },
  };
}

/** A foreground command in the editor's terminal: the same result as a child process's, from what it kept. */
async function runInTerminal(
  terminal: CommandTerminal,
  command: string,
  cwd: string,
  timeoutMs: number,
  maxOutputChars: number,
  context: { signal: AbortSignal; toolUseId: string },
) {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout]);
  const ran = await terminal.run(command, {
    cwd,
    signal,
    toolUseId: context.toolUseId,
    // The terminal keeps the end; the result keeps its beginning and end within maxOutputChars.
    outputByteLimit: maxOutputChars * 4,
  });
  const kept = truncateOutput(ran.output, maxOutputChars);
  return formatResult(
    {
      text: kept.text,
      truncated: ran.truncated || kept.truncated,
      totalChars: ran.output.length,
      saveError: "it ran in the editor's terminal, which holds its end; rerun it with a filter to see more",
    },
    { code: ran.exitCode, signal: (ran.signal ?? null) as NodeJS.Signals | null },
    {
      stoppedBy: context.signal.aborted ? "abort" : timeout.aborted ? "timeout" : undefined,
      leftovers: false,
      detachedHolder: false,
      timeoutMs,
    },
  );
}

function sandboxNote(sandbox: SandboxOptions): string {
  return `- Commands run in a sandbox: they can write only inside the workspace folders (and a private /tmp that is discarded after each command); the rest of the filesystem is read-only, and .git (all of it: git commands that write, such as commit, fail — ask the user to run them), .mitsu, .claude and .mcp.json stay read-only too, even where absent.${sandbox.allowUnixSockets ? "" : " Unix sockets (ssh-agent, docker) cannot be used."} ${sandbox.allowNetwork ? "The network is reachable." : "The network is not reachable: package installs and downloads fail; ask the user to run those."}`;
}

/** How long the output pipes may stay open after the command's process group has ended. */
const PIPE_GRACE_MS = 1_000;

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), late]).finally(() => clearTimeout(timer));
}

interface Ending {
  stoppedBy: "timeout" | "abort" | undefined;
  leftovers: boolean;
  /** A process outside the command's group still held the output open when the command ended. */
  detachedHolder: boolean;
  timeoutMs: number;
}

function formatResult(
  kept: Awaited<ReturnType<CappedOutput["finish"]>>,
  exit: { code: number | null; signal: NodeJS.Signals | null },
  ending: Ending,
) {
  const parts: string[] = [kept.text === "" ? "(no output)" : kept.text.replace(/\n$/, "")];
  const notes: string[] = [];
  if (kept.truncated) {
    if (kept.fullOutputPath && kept.spillOmittedBytes !== undefined) {
      notes.push(
        `Output was ${kept.totalChars} characters; only its beginning and end are shown. Its beginning and its end are saved in ${kept.fullOutputPath} (the saved copy is capped, so ${kept.spillOmittedBytes} bytes from its middle were dropped): Read it (with offset and limit) or Grep it to see more.`,
      );
    } else if (kept.fullOutputPath) {
      notes.push(
        `Output was ${kept.totalChars} characters; only its beginning and end are shown. The whole output is saved in ${kept.fullOutputPath}: Read it (with offset and limit) or Grep it to see the rest.`,
      );
    } else {
      notes.push(
        `Output was ${kept.totalChars} characters; only its beginning and end are shown (the whole output could not be saved: ${kept.saveError ?? "unknown error"}).`,
      );
    }
  }
  if (ending.leftovers) {
    notes.push("Processes the command left running in the background were stopped.");
  }
  if (ending.detachedHolder && !ending.stoppedBy) {
    notes.push(
      "A process the command detached from its group (setsid, a daemon) still holds the output open; it keeps running until mitsu exits, and what it prints later is not captured. Use run_in_background for a server.",
    );
  }
  if (ending.stoppedBy === "timeout") {
    notes.push(
      `The command timed out after ${ending.timeoutMs} ms and was stopped, with every process it started. Pass a larger timeout (at most ${BASH_MAX_TIMEOUT_MS} ms) or run less at once.`,
    );
  } else if (exit.code !== null) {
    notes.push(`Exit code: ${exit.code}`);
  } else {
    notes.push(`Terminated by signal ${exit.signal ?? "unknown"}`);
  }
  if (notes.length > 0) parts.push(notes.map((note) => `[${note}]`).join("\n"));
  const text = parts.join("\n\n");
  if (ending.stoppedBy === "abort") throw new ToolError(`The command was aborted.\n\n${text}`);
  return { content: text, isError: ending.stoppedBy === "timeout" };
}
