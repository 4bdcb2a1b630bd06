import { createWriteStream, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { ToolError } from "../loop/tool.js";
import { killTagged } from "../process/process-tag.js";
import { CappedOutput, MAX_SPILL_BYTES } from "./capped-output.js";
import { killProcessGroup, processGroupExists } from "./kill-process-group.js";
import { type SpawnCommandOptions, spawnCommand } from "./spawn-command.js";

/** What is known of one background command. */
export interface ShellInfo {
  id: string;
  command: string;
  /** `running` until the shell exits; `killed` when KillShell or the session's end stopped it. */
  status: "running" | "exited" | "killed";
  /** Set once it exited on its own (null when a signal ended it). */
  exitCode?: number | null;
  signal?: NodeJS.Signals | null;
  /**
   * Where its output is written, in order: all of it up to `maxLogBytes`, past that its beginning, then (once it
   * ends) a marker line and its last MiB — the cap of a foreground command's saved output.
   */
  logPath: string;
  startedAt: number;
}

/** New output of a shell since the previous read. */
export interface ShellRead {
  info: ShellInfo;
  text: string;
  /** Unread characters that were dropped because too much piled up between two reads (they are in `logPath`). */
  dropped: number;
  /** With a filter: lines read that did not match (they are consumed). */
  filteredOut?: number;
}

export interface BackgroundShellsOptions {
  /** Where each shell's log goes (created on first use, mode 0700; removed with every log by `killAll`). */
  outputDir: string;
  /** Most bytes one shell's log may take on disk. Default 64 MiB (`MAX_SPILL_BYTES`). */
  maxLogBytes?: number;
  /** Unread characters kept per shell; past that the oldest are dropped (the log keeps them). Default 30 000. */
  maxUnreadChars?: number;
  /** Time a process group gets between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
}

interface Entry {
  info: ShellInfo;
  pgid: number | undefined;
  unread: string;
  dropped: number;
  log: CappedOutput;
  exited: Promise<void>;
  unwatch: () => void;
  /** In the environment of everything it starts: what left its group (setsid) is found by it. */
  tag: string;
}

/**
 * The commands the model started with `run_in_background`, for the session: each runs in its own process
 * group, its output goes to a log file and to an unread buffer that BashOutput drains, and `killAll` (the
 * session's end) stops every group still there — also those whose shell exited but left processes behind. If
 * the process exits without `killAll` (a crash, `process.exit`), an exit handler still sends SIGKILL to them.
 */
export class BackgroundShells {
  readonly #entries = new Map<string, Entry>();
  readonly #listeners = new Set<() => void>();
  readonly #maxUnread: number;
  readonly #killGraceMs: number;
  #sequence = 0;
  #exitHook: (() => void) | undefined;

  constructor(private readonly options: BackgroundShellsOptions) {
    this.#maxUnread = options.maxUnreadChars ?? 30_000;
    this.#killGraceMs = options.killGraceMs ?? 2000;
  }

  /** Starts `command` in the background and returns its id (`bash_1`, …). */
  start(command: string, spawnOptions: SpawnCommandOptions): ShellInfo {
    mkdirSync(this.options.outputDir, { recursive: true, mode: 0o700 });
    const id = `bash_${++this.#sequence}`;
    const logPath = join(this.options.outputDir, `${id}-${Date.now()}.log`);
    // Registered with the watchdog: the group dies with mitsu even if mitsu is killed outright.
    const { child, unwatch, tag } = spawnCommand(command, spawnOptions);
    const info: ShellInfo = { id, command, status: "running", logPath, startedAt: Date.now() };
    const stream = createWriteStream(logPath, { mode: 0o600 });
    stream.on("error", () => {}); // The log is a convenience: a full disk must not crash the session.
    // Capped as a foreground command's saved output is: a command printing without end fills no disk.
    const log = new CappedOutput({
      maxChars: 0,
      openSpill: () => ({ path: logPath, stream }),
      maxSpillBytes: this.options.maxLogBytes ?? MAX_SPILL_BYTES,
    });
    const entry: Entry = {
      info,
      pgid: child.pid,
      unread: "",
      dropped: 0,
      log,
      exited: Promise.resolve(),
      unwatch,
      tag,
    };
    const decoders = [new StringDecoder("utf8"), new StringDecoder("utf8")] as const;
    let paused = false;
    const take = (text: string) => {
      if (text === "") return;
      // Back-pressure: while the log cannot keep up, the command blocks on its full pipe.
      if (!log.push(text) && !paused) {
        paused = true;
        child.stdout.pause();
        child.stderr.pause();
        log.onDrain(() => {
          paused = false;
          child.stdout.resume();
          child.stderr.resume();
        });
      }
      entry.unread += text;
      if (entry.unread.length > this.#maxUnread) {
        const cut = entry.unread.length - this.#maxUnread;
        entry.dropped += cut;
        entry.unread = entry.unread.slice(cut);
      }
    };
    child.stdout.on("data", (chunk: Buffer) => take(decoders[0].write(chunk)));
    child.stderr.on("data", (chunk: Buffer) => take(decoders[1].write(chunk)));
    entry.exited = new Promise<void>((resolve) => {
      child.once("error", (error) => {
        take(`Cannot start the command: ${error.message}\n`);
        if (info.status === "running") info.status = "exited";
        info.exitCode = null;
        this.#changed();
        resolve();
      });
      child.once("close", (code, signal) => {
        take(decoders[0].end());
        take(decoders[1].end());
        void log.finish().finally(() => stream.destroy());
        // Nothing of its group is left: forget the id, which the system may give to another group later.
        if (entry.pgid !== undefined && !processGroupExists(entry.pgid)) {
          entry.pgid = undefined;
          entry.unwatch();
        }
        if (info.status === "running") {
          info.status = "exited";
          info.exitCode = code;
          info.signal = signal;
        }
        this.#changed();
        resolve();
      });
    });
    this.#entries.set(id, entry);
    this.#installExitHook();
    this.#changed();
    return { ...info };
  }

  /** The new output of `id` since the last read; with `filter`, only the complete lines that match it. */
  read(id: string, filter?: RegExp): ShellRead {
    const entry = this.#get(id);
    const dropped = entry.dropped;
    entry.dropped = 0;
    if (!filter) {
      const text = entry.unread;
      entry.unread = "";
      return { info: { ...entry.info }, text, dropped };
    }
    // A line still being written is left for the next read, so a filter never sees half a line.
    const end = entry.info.status === "running" ? entry.unread.lastIndexOf("\n") + 1 : entry.unread.length;
    const lines = entry.unread.slice(0, end).split("\n");
    if (lines.at(-1) === "") lines.pop();
    entry.unread = entry.unread.slice(end);
    const kept = lines.filter((line) => {
      filter.lastIndex = 0;
      return filter.test(line);
    });
    return {
      info: { ...entry.info },
      text: kept.map((line) => `${line}\n`).join(""),
      dropped,
      filteredOut: lines.length - kept.length,
    };
  }

  /** Stops `id` and everything it started; resolves with what is known of it then. */
  async kill(id: string): Promise<{ info: ShellInfo; wasRunning: boolean }> {
    const entry = this.#get(id);
    const wasRunning = entry.info.status === "running";
    if (wasRunning) entry.info.status = "killed";
    await this.#stop(entry);
    this.#changed();
    return { info: { ...entry.info }, wasRunning };
  }

  /** The shells still running, oldest first. */
  running(): ShellInfo[] {
    return [...this.#entries.values()]
      .filter((entry) => entry.info.status === "running")
      .map((entry) => ({ ...entry.info }));
  }

  /** Every shell started in this session, oldest first. */
  list(): ShellInfo[] {
    return [...this.#entries.values()].map((entry) => ({ ...entry.info }));
  }

  /** Called after a shell starts, exits or is stopped (the terminal redraws its status). Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The session's end: stops every shell's process group. Safe to call more than once. */
  async killAll(): Promise<void> {
    const entries = [...this.#entries.values()];
    for (const entry of entries) if (entry.info.status === "running") entry.info.status = "killed";
    await Promise.all(entries.map((entry) => this.#stop(entry)));
    // The logs go with the session: nothing of its output stays on disk after it.
    rmSync(this.options.outputDir, { recursive: true, force: true });
    if (this.#exitHook) {
      process.removeListener("exit", this.#exitHook);
      this.#exitHook = undefined;
    }
    this.#changed();
  }

  async #stop(entry: Entry): Promise<void> {
    if (entry.pgid !== undefined) await killProcessGroup(entry.pgid, this.#killGraceMs);
    // And whatever left the group with setsid: it still carries the shell's tag.
    killTagged(entry.tag);
    await entry.exited;
    entry.pgid = undefined;
    entry.unwatch();
  }

  #get(id: string): Entry {
    const entry = this.#entries.get(id.trim());
    if (entry) return entry;
    const known = [...this.#entries.keys()];
    throw new ToolError(
      `No background shell with id ${JSON.stringify(id)}. ${known.length > 0 ? `Shells of this session: ${known.join(", ")}.` : "No command was started in the background in this session."}`,
    );
  }

  #installExitHook(): void {
    if (this.#exitHook) return;
    this.#exitHook = () => {
      for (const entry of this.#entries.values()) {
        try {
          if (entry.pgid !== undefined) process.kill(-entry.pgid, "SIGKILL");
        } catch {
          // Already gone.
        }
        killTagged(entry.tag);
      }
      rmSync(this.options.outputDir, { recursive: true, force: true });
    };
    process.on("exit", this.#exitHook);
  }

  #changed(): void {
    for (const listener of this.#listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own.
      }
    }
  }
}
