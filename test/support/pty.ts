import { join } from "node:path";
import { type IPty, spawn } from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { afterEach } from "vitest";

/** The built command (`npm run build` first, as `npm test` does). */
export const MITSU_BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");

/** Keys as a terminal sends them (xterm, with modifyOtherKeys for Shift-Enter). */
const KEYS = {
  enter: "\r",
  escape: "\x1b",
  tab: "\t",
  up: "\x1b[A",
  down: "\x1b[B",
  backspace: "\x7f",
  "ctrl-c": "\x03",
  "ctrl-d": "\x04",
  "ctrl-o": "\x0f",
  "ctrl-r": "\x12",
  "shift-tab": "\x1b[Z",
  "shift-enter": "\x1b[27;2;13~",
} as const;

export type Key = keyof typeof KEYS;

export interface PtyMitsu {
  /** What the terminal shows: scrollback and screen, one string a row (trailing spaces cut), ANSI interpreted. */
  screen(): string;
  /**
   * Resolves once `text` (a string, or a regex over `screen()`) is on the terminal, or a condition holds; rejects
   * with the screen after `timeoutMs`.
   */
  waitFor(text: string | RegExp | (() => boolean), timeoutMs?: number): Promise<void>;
  /**
   * Types characters one write each (as a person types, so that no two keys arrive as one chunk), `delayMs`
   * apart (2 by default; 0 writes them one after another without waiting, as a fast typist or a key macro).
   */
  type(text: string, delayMs?: number): Promise<void>;
  /** Writes `text` (keys, Enter included) to the terminal in one write: every key in one chunk. */
  write(text: string): void;
  /** Pastes `text` as a terminal with bracketed paste does: one write between the paste markers. */
  paste(text: string): void;
  press(key: Key): void;
  /** The window is resized (the terminal and mitsu both learn it, as with SIGWINCH). */
  resize(cols: number, rows: number): void;
  /** Resolves with the exit code when mitsu exits. */
  readonly exit: Promise<number>;
  /** Kills it (the test's end). */
  kill(): void;
}

/**
 * `mitsu <args>` in a pseudo-terminal of `cols`×`rows`, its output fed to a headless xterm (what a user would see,
 * not the bytes), so tests read the screen as drawn by differential rendering.
 */
export function spawnMitsu(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; cols?: number; rows?: number },
): PtyMitsu {
  const cols = options.cols ?? 100;
  const rows = options.rows ?? 30;
  const term = new xterm.Terminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
  const child: IPty = spawn(process.execPath, [MITSU_BIN, ...args], {
    name: "xterm-256color",
    cols,
    rows,
    cwd: options.cwd,
    env: { TERM: "xterm-256color", ...options.env } as Record<string, string>,
  });
  const waiters = new Set<() => void>();
  let pending = 0;
  child.onData((data) => {
    pending++;
    term.write(data, () => {
      pending--;
      for (const wake of waiters) wake();
    });
  });
  const exit = new Promise<number>((resolve) => {
    child.onExit(({ exitCode }) => {
      // The last output parsed before anyone reads the screen.
      const done = () => (pending === 0 ? resolve(exitCode) : setTimeout(done, 10));
      done();
      for (const wake of waiters) wake();
    });
  });
  let exited = false;
  void exit.then(() => {
    exited = true;
  });
  const screen = () => {
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
    while (lines.length > 0 && lines.at(-1) === "") lines.pop();
    return lines.join("\n");
  };
  const matches = (text: string | RegExp | (() => boolean)) =>
    typeof text === "string"
      ? screen().includes(text)
      : typeof text === "function"
        ? text()
        : text.test(screen());
  return {
    screen,
    exit,
    waitFor(text, timeoutMs = 10_000) {
      if (matches(text)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (matches(text)) {
            cleanup();
            resolve();
          } else if (exited && pending === 0) {
            cleanup();
            reject(new Error(`mitsu exited before ${String(text)} showed; screen:\n${screen()}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`waited ${timeoutMs} ms for ${String(text)}; screen:\n${screen()}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    async type(text, delayMs = 2) {
      for (const ch of text) {
        child.write(ch);
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
    },
    write(text) {
      child.write(text);
    },
    paste(text) {
      child.write(`\x1b[200~${text}\x1b[201~`);
    },
    press(key) {
      child.write(KEYS[key]);
    },
    resize(cols, rows) {
      term.resize(cols, rows);
      child.resize(cols, rows);
    },
    kill() {
      if (!exited) child.kill();
      term.dispose();
    },
  };
}

/**
 * What a file of pseudo-terminal tests shares: `spawn` starts mitsu (as `spawnMitsu`), `serve` keeps the simulator
 * it talks to (`simulatorEnv`'s, returned as given); after each test every mitsu spawned is killed, then the
 * simulator closed.
 */
export function ptyRuns(): {
  spawn: typeof spawnMitsu;
  serve<S extends { sim: { close(): Promise<void> } }>(started: S): S;
} {
  let sim: { close(): Promise<void> } | undefined;
  let running: PtyMitsu[] = [];
  afterEach(async () => {
    for (const m of running) m.kill();
    running = [];
    await sim?.close();
    sim = undefined;
  });
  return {
    spawn(args, options) {
      const m = spawnMitsu(args, options);
      running.push(m);
      return m;
    },
    serve(started) {
      sim = started.sim;
      return started;
    },
  };
}
