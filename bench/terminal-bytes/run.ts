/**
 * bench/terminal-bytes — what the terminal receives while one Markdown answer streams: bytes and writes (the
 * pseudo-terminal's reads, each one or more writes of the program) and frames, from the prompt's keys to the turn's
 * end, for mitsu and, when it is installed, Claude Code on the same scripted answer (see bench/startup for how to
 * install it). BENCH_BYTES_DUMP=<file> appends each read there as a JSON string, one a line.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { startSimulator } from "../../src/simulator/index.js";
import {
  CLAUDE_CODE_INSTALL,
  claudeCodeEnv,
  findClaudeCode,
  prepareClaudeHome,
} from "../startup/claude-code.js";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const bin = process.env.MITSU_BIN ?? join(repoRoot, "dist", "cli", "bin.js");
const claude = findClaudeCode(repoRoot);
const API_KEY = "sk-ant-bench-0123456789abcdefghij";
const runs = process.argv.includes("--quick") ? 2 : 5;

/** A Markdown answer of about 1.3 KB: headings, a list, a code block, a table, paragraphs. */
const ANSWER = [
  "## What the change does",
  "",
  "The parser now reads **each line once** and keeps the offsets it found, so a second pass is not needed. Three parts changed:",
  "",
  "1. `readHeader` stops at the first blank line instead of scanning the whole file.",
  "2. `splitFields` returns slices of the original buffer, not copies.",
  "3. The error messages name the line and column, as an editor shows them.",
  "",
  "```ts",
  "export function readHeader(text: string): Header {",
  '  const end = text.indexOf("\\n\\n");',
  "  return parseFields(end === -1 ? text : text.slice(0, end));",
  "}",
  "```",
  "",
  "| case | before | after |",
  "|---|---|---|",
  "| 1 MB file | 41 ms | 12 ms |",
  "| 10 MB file | 530 ms | 118 ms |",
  "| malformed | crash | line 3, column 14 |",
  "",
  "### What to check",
  "",
  `Run the tests with \`npm test\`; ${"the new cases cover an empty file, a file with only a header, and one with a header longer than the buffer. ".repeat(4)}`,
  "",
  "- The benchmark in `bench/parse` shows the times above.",
  "- Nothing else in the public API changed.",
  "",
  "That is all.",
].join("\n");

interface Measure {
  bytes: number;
  writes: number;
  /** Synchronized updates (`ESC[?2026h` … `l`): the frames a terminal shows whole. */
  frames: number;
}

/** What a terminal shows (scrollback and screen), as one string: read through a terminal emulator, since a
 * differential renderer writes a row's changed cells only and the bytes alone do not spell the text out. */
function screenText(term: InstanceType<typeof xterm.Terminal>): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? "");
  return lines.join("\n");
}

/**
 * Spawns `command` in a 100×30 pseudo-terminal, types the prompt once `ready` shows, counts until `done` shows.
 */
function measure(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; done: RegExp },
): Promise<Measure | undefined> {
  return new Promise((resolve) => {
    const term = spawn(command, args, {
      cwd: options.cwd,
      env: options.env as Record<string, string>,
      cols: 100,
      rows: 30,
      name: "xterm-256color",
    });
    const screen = new xterm.Terminal({ cols: 100, rows: 30, scrollback: 5000, allowProposedApi: true });
    let typed = false;
    let counting = false;
    let finished = false;
    const counted: Measure = { bytes: 0, writes: 0, frames: 0 };
    let settle: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => term.kill("SIGKILL"), 30_000);
    term.onData((data) => {
      if (counting) {
        counted.bytes += Buffer.byteLength(data);
        counted.writes++;
        counted.frames += data.split("\u001b[?2026h").length - 1;
        if (process.env.BENCH_BYTES_DUMP)
          appendFileSync(process.env.BENCH_BYTES_DUMP, `${JSON.stringify(data)}\n`);
      }
      screen.write(data, () => {
        const text = screenText(screen);
        if (!typed && options.ready.test(text)) {
          typed = true;
          // Counted from the prompt's keys on: what the program still draws of its start-up is not the answer's.
          setTimeout(() => {
            counting = true;
            term.write("explain the change\r");
          }, 300);
          return;
        }
        if (!counting || finished || !options.done.test(text)) return;
        finished = true;
        // What follows the answer at once (the status line) belongs to it; then stop.
        settle = setTimeout(() => {
          counting = false;
          term.kill("SIGKILL");
        }, 500);
      });
    });
    term.onExit(() => {
      clearTimeout(timer);
      if (settle) clearTimeout(settle);
      resolve(finished ? counted : undefined);
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const root = mkdtempSync(join(tmpdir(), "mitsu-bench-bytes-"));
try {
  const cwd = join(root, "project");
  mkdirSync(cwd);
  writeFileSync(join(cwd, "README.md"), "# project\n");
  const rows: Array<[string, Measure[]]> = [];
  for (const who of ["mitsu", ...(claude ? ["Claude Code"] : [])]) {
    const results: Measure[] = [];
    for (let i = 0; i < runs; i++) {
      // The answer streams in 24-character pieces, 15 ms apart, as a model writes it.
      const sim = await startSimulator({
        script: [{ content: [{ type: "text", text: ANSWER }] }],
        textChunk: 24,
        delayMs: 15,
      });
      const home = join(root, `home-${who}-${i}`);
      mkdirSync(home);
      const measured =
        who === "mitsu"
          ? await measure(process.execPath, [bin], {
              cwd,
              env: {
                PATH: process.env.PATH,
                HOME: home,
                TERM: "xterm-256color",
                ANTHROPIC_API_KEY: API_KEY,
                ANTHROPIC_BASE_URL: sim.url,
              },
              ready: /─{20}/,
              done: /That is all\.[\s\S]*\d+(\.\d)?s ·/,
            })
          : await (async () => {
              prepareClaudeHome(home, cwd, API_KEY);
              return measure(claude as string, [], {
                cwd,
                env: claudeCodeEnv(home, sim.url, API_KEY),
                ready: /❯/,
                done: /That is all\./,
              });
            })();
      await sim.close();
      if (measured) results.push(measured);
    }
    rows.push([who, results]);
  }
  console.log(
    "\nbench/terminal-bytes — one streamed Markdown answer (~1.3 KB), bytes and writes to the terminal\n",
  );
  console.log("| program | bytes (median) | writes (median) | frames (median) | runs |");
  console.log("| ------- | -------------- | --------------- | --------------- | ---- |");
  for (const [who, results] of rows) {
    const bytes = median(results.map((r) => r.bytes));
    const writes = median(results.map((r) => r.writes));
    const frames = median(results.map((r) => r.frames));
    console.log(`| ${who} | ${bytes.toLocaleString("en-US")} | ${writes} | ${frames} | ${results.length} |`);
  }
  console.log(`\nanswer: ${ANSWER.length.toLocaleString("en-US")} characters`);
  if (!claude) console.log(`Claude Code was not found: \`${CLAUDE_CODE_INSTALL}\` adds its row.`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
