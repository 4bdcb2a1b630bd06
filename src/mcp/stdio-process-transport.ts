import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { startChildWatchdog, watchProcessGroup } from "../process/child-watchdog.js";
import { killProcessGroup } from "../tools/kill-process-group.js";
import { trackProcessGroup, untrackProcessGroup } from "./process-groups.js";

/** One JSON-RPC message may be this large; past it the server is stopped (it would exhaust memory). */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface StdioProcessOptions {
  command: string;
  args: string[];
  /** The whole environment of the server (see `mcpServerEnv`). */
  env: Record<string, string>;
  cwd: string;
  /** The server's stderr is appended here (created 0600 with its folder); absent: discarded. */
  logFile?: string;
  /** How long a stopping server has between SIGTERM and SIGKILL. Default 1000 ms. */
  stopGraceMs?: number;
}

/**
 * The SDK's stdio protocol (newline-delimited JSON-RPC, its own `ReadBuffer`) over a child that runs in a process
 * group of its own (the SDK's `StdioClientTransport` cannot spawn one). So stopping the server stops everything it
 * started too: `close()` ends its stdin, then sends the group SIGTERM and later SIGKILL; a server that exits by
 * itself has its group killed as well (no orphaned grandchildren); and the group is registered so that it is killed
 * when mitsu exits (see `process-groups.ts`) — and, should mitsu be killed outright, by the watchdog
 * (`watchProcessGroup`). The server's stderr goes to a log file, never to the terminal.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  /** The bytes of the line being received, in pieces: a long line costs its length, not its length squared. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  private unwatch: () => void = () => {};
  private exited: Promise<void> | undefined;

  constructor(private readonly options: StdioProcessOptions) {}

  /** The server's pid, which is also its process group id; undefined before `start`. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended, once it has: `exit code 1`, `signal SIGKILL`. */
  exitDescription: string | undefined;

  async start(): Promise<void> {
    if (this.child) throw new Error("StdioProcessTransport already started");
    const log = this.openLog();
    // Started before the spawn, so registering the new group right after it is one write (see watchProcessGroup).
    startChildWatchdog();
    try {
      const child = spawn(this.options.command, this.options.args, {
        cwd: this.options.cwd,
        env: this.options.env,
        stdio: ["pipe", "pipe", log ?? "ignore"],
        detached: true,
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((resolve) => child.once("close", () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.once("spawn", () => resolve());
        child.once("error", (error: NodeJS.ErrnoException) => {
          reject(
            error.code === "ENOENT"
              ? new Error(`command not found: ${this.options.command}`)
              : new Error(`cannot start ${this.options.command}: ${error.message}`),
          );
        });
      });
      const pgid = child.pid!;
      trackProcessGroup(pgid);
      // Should mitsu itself be killed (kill -9), the watchdog stops the group: nothing can run on unwatched.
      this.unwatch = watchProcessGroup(pgid);
      child.on("error", (error) => this.onerror?.(error));
      child.stdin!.on("error", (error) => this.onerror?.(error));
      child.stdout!.on("data", (chunk: Buffer) => this.receive(chunk));
      child.once("close", (code, signal) => {
        this.exitDescription = signal ? `signal ${signal}` : `exit code ${code}`;
        // What it started may still run: the group goes with its leader.
        void killProcessGroup(pgid, 0).finally(() => {
          untrackProcessGroup(pgid);
          this.unwatch();
        });
        this.finish();
      });
    } finally {
      if (log !== undefined) closeSync(log);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || stdin.destroyed) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) {
      this.finish();
      return;
    }
    const pgid = child.pid;
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    // A moment to exit on its own (most servers stop at the end of stdin), then the whole group is stopped.
    if (child.exitCode === null && child.signalCode === null) {
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
    }
    await killProcessGroup(pgid, this.options.stopGraceMs ?? 1000);
    untrackProcessGroup(pgid);
    this.unwatch();
    this.finish();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(10, start);
      if (end === -1) break;
      const piece = chunk.subarray(start, end);
      const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
      this.pending = [];
      this.pendingBytes = 0;
      start = end + 1;
      const text = line.toString("utf8").replace(/\r$/, "");
      if (text.trim() === "") continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(text);
      } catch (error) {
        // A line that is not JSON-RPC (a server printing to stdout): reported, and reading goes on.
        this.onerror?.(
          new Error(`the server wrote a line that is not JSON-RPC: ${(error as Error).message}`),
        );
        continue;
      }
      this.onmessage?.(message);
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > MAX_MESSAGE_BYTES) {
        this.pending = [];
        this.pendingBytes = 0;
        this.onerror?.(new Error(`the server sent a message over ${MAX_MESSAGE_BYTES} bytes`));
        void this.close();
      }
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = [];
    this.onclose?.();
  }

  private openLog(): number | undefined {
    const file = this.options.logFile;
    if (!file) return undefined;
    try {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      const fd = openSync(file, "a", 0o600);
      writeSync(
        fd,
        `--- ${new Date().toISOString()} ${this.options.command} ${this.options.args.join(" ")}\n`,
      );
      return fd;
    } catch {
      return undefined;
    }
  }
}
