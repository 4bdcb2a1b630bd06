/**
 * bench/long-session: a session of TURNS Read calls of ~100 KB files each (about 25,000 tokens a result)
 * through the whole coding agent, on a model with a 128,000-token window, against the simulator (Anthropic's
 * cache rules; it refuses a request over the window as the real API does). Run twice: with a server that reports
 * usage honestly, and with one that under-reports (100 input tokens a call, as some compatible servers do). The
 * agent runs in a child process, so its peak RSS and CPU are mitsu's alone. Side by side: peak RSS, CPU per
 * turn, largest request against the window (the server's own count), requests refused, compactions, the
 * cache-read share. Then resume: the time and memory to open sessions of 10 MB and 100 MB (written the way a
 * long session writes them: Reads, results, a compaction every few turns) and of the session just run.
 *
 * To find where the bytes go (environment of `node dist-bench/bench/long-session/run.js`):
 *  - MITSU_BENCH_ONLY=honest: only the honest session, one line of figures;
 *  - MITSU_BENCH_NODE_ARGS="--expose-gc --max-semi-space-size=2": flags of the measured process;
 *  - MITSU_BENCH_ALLOCPROF=file: a sampling profile of every allocation of the session (collected ones too);
 *  - MITSU_BENCH_PEAKLOG=1 / MITSU_BENCH_MEMLOG=1: the event at which RSS peaked / memory every 10 turns;
 *  - MITSU_BENCH_SNAPSHOT=file (with --expose-gc): a heap snapshot after a full GC at the end;
 *  - MITSU_BENCH_SMAPS=file (with MITSU_BENCH_PEAKLOG=1): /proc/self/smaps at the peak (what the RSS is made of).
 *
 * Where the bytes went (Node 20, honest run): the live heap stays ~15 MB; the peak is garbage waiting for a full
 * GC. A request body sent as a string was copied by fetch (toUSVString) into a large object in the old
 * generation, ~0.5 MB a request (fixed: bytes, jsonBytes). Buffers of a turn (the body, fetch's copy of it, the
 * session log's line, the Read tool's chunks) stayed until a full GC, ~40 turns of them at once (33 MB of
 * ArrayBuffers at the peak), and the malloc heap they grew (43 MB at the peak) is not given back. Fixed: the body
 * is written into one kept buffer and given to Node's fetch as a stream of it, which fetch does not copy (a
 * Uint8Array body it copied: 1.2 MB of ArrayBuffers per MB sent); the log line is written without a Buffer. Now
 * the malloc heap stays ~6 MB and the peak is ~41 MB of the node binary, ~60 MB of V8 heap (two 16 MB
 * semi-spaces of it; --max-semi-space-size=2 takes ~15 MB off) and ~25 MB of the rest of the process.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Message } from "../../src/messages/index.js";
import { SessionLog } from "../../src/session/index.js";
import {
  type LoggedRequest,
  type SimTurn,
  type SimUsage,
  startSimulator,
} from "../../src/simulator/index.js";

const quick = process.argv.includes("--quick");
const TURNS = quick ? 60 : 300;
const WINDOW = 128_000;
const MAX_OUTPUT = 16_384;
const FILES = 20;
const FILE_BYTES = 100_000;
const here = dirname(fileURLToPath(import.meta.url));
const CHILD = join(here, "agent-child.js");

/** The files of the workspace (different contents, so no result repeats another) and the model's limits. */
function workspace(root: string): { cwd: string; home: string } {
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  writeFileSync(
    join(home, ".mitsu", "models.json"),
    JSON.stringify({
      providers: {
        anthropic: { models: [{ id: "long", contextWindow: WINDOW, maxOutputTokens: MAX_OUTPUT }] },
      },
    }),
  );
  for (let f = 0; f < FILES; f++) {
    const lines: string[] = [];
    for (let n = 0; lines.length * 64 < FILE_BYTES; n++)
      lines.push(`file ${f} line ${n}: ${"the quick brown fox jumps over the lazy dog ".slice(0, 40)}`);
    writeFileSync(join(cwd, `file${f}.txt`), `${lines.join("\n")}\n`);
  }
  return { cwd, home };
}

function isSummaryRequest(request: LoggedRequest): boolean {
  const last = request.body?.messages?.at?.(-1);
  const block = Array.isArray(last?.content) ? last.content.at(-1) : undefined;
  return typeof block?.text === "string" && block.text.includes("about to be compacted");
}

interface Figures {
  reason: string;
  error?: string;
  compactions: number;
  trims: number;
  cpuMs: number;
  wallMs: number;
  maxRssMb: number;
  sessionPath: string;
  sessionBytes: number;
  requests: number;
  refused: number;
  largest: number;
  summaries: number;
  sent: number;
  read: number;
}

function runChild(env: Record<string, string>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    // MITSU_BENCH_NODE_ARGS: flags for the measured process when profiling it (e.g. --heap-prof, --expose-gc).
    const flags = (process.env.MITSU_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
    const child = spawn(process.execPath, [...flags, CHILD], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`bench child exited ${code} without figures: ${out.slice(-500)}`));
      }
    });
  });
}

async function session(root: string, underReport: boolean): Promise<Figures> {
  const { cwd, home } = workspace(join(root, underReport ? "under" : "honest"));
  const stats = { requests: 0, refused: 0, largest: 0, summaries: 0, sent: 0, read: 0 };
  let seen = 0;
  /** Counts the requests the server has answered and lets go of their bodies (the parent stays small). */
  const settle = (requests: LoggedRequest[], upTo: number) => {
    for (; seen < upTo; seen++) {
      const r = requests[seen] as LoggedRequest;
      stats.requests++;
      if (r.status !== 200) stats.refused++;
      const u = r.usage;
      if (u) {
        const sent = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
        stats.largest = Math.max(stats.largest, sent);
        stats.sent += sent;
        stats.read += u.cache_read_input_tokens;
      }
      r.body = undefined;
    }
  };
  let reads = 0;
  const think = (request: LoggedRequest): SimTurn => {
    settle(sim.requests, sim.requests.indexOf(request));
    if (isSummaryRequest(request)) {
      stats.summaries++;
      return {
        content: [
          {
            type: "text",
            text: `<summary>The user asked to read every file; ${reads} read so far, all alike: numbered lines of a pangram.</summary>`,
          },
        ],
      };
    }
    if (reads < TURNS) {
      reads++;
      return {
        content: [{ type: "tool_use", name: "Read", input: { file_path: `file${reads % FILES}.txt` } }],
      };
    }
    return { content: [{ type: "text", text: "They are all numbered lines of the same pangram." }] };
  };
  const report = (u: SimUsage): SimUsage => ({
    ...u,
    input_tokens: 100,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  });
  const sim = await startSimulator({
    script: Array.from({ length: TURNS * 2 + 100 }, () => think),
    contextWindow: WINDOW,
    ...(underReport ? { reportUsage: report } : {}),
  });
  try {
    const child = await runChild({
      MITSU_BENCH_MODE: "session",
      MITSU_BENCH_URL: sim.url,
      MITSU_BENCH_TURNS: String(TURNS),
      MITSU_BENCH_CWD: cwd,
      MITSU_BENCH_HOME: home,
    });
    settle(sim.requests, sim.requests.length);
    return { ...(child as unknown as Figures), ...stats };
  } finally {
    await sim.close();
  }
}

/**
 * A session file of about `bytes`, written as a long session writes one: a prompt, then Read calls whose ~100 KB
 * results are logged as they finish, and a compaction line every four turns (what a 128k window needs).
 */
function writeSession(dir: string, cwd: string, bytes: number): string {
  const log = SessionLog.create(dir, {
    cwd,
    model: "anthropic:long",
    system: [{ type: "text", text: "You are mitsu." }],
  });
  const result = `${"     1\tfile line: the quick brown fox jumps over the lazy dog\n".repeat(1_800)}`.slice(
    0,
    100_000,
  );
  log.append({ role: "user", content: [{ type: "text", text: "Read every file." }] });
  let tail: Message[] = [];
  for (let turn = 1; statSync(log.path).size < bytes; turn++) {
    const id = `toolu_${String(turn).padStart(6, "0")}`;
    const call: Message = {
      role: "assistant",
      content: [{ type: "tool_use", id, name: "Read", input: { file_path: `file${turn % FILES}.txt` } }],
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 20_000 + turn,
        cache_creation_input_tokens: 25_000,
        output_tokens: 30,
      },
      stop_reason: "tool_use",
    };
    const answer: Message = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: result }],
    };
    log.append(call);
    log.appendEntry({ type: "tool-start", toolUseId: id, name: "Read" });
    log.appendEntry({ type: "tool-result", result: answer.content[0] as never });
    log.append(answer);
    tail = [call, answer];
    if (turn % 4 === 0) {
      const summary: Message = {
        role: "user",
        content: [{ type: "text", text: `<summary>Read ${turn} files.</summary>` }],
      };
      log.appendEntry({
        type: "compaction",
        reason: "compacted",
        before: 9,
        messages: [summary, ...tail],
        summary: `Read ${turn} files.`,
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 100_000,
          cache_creation_input_tokens: 0,
          output_tokens: 300,
        },
      });
    }
  }
  log.close();
  return log.path;
}

async function resume(
  root: string,
  path: string,
): Promise<{ cpuMs: number; wallMs: number; maxRssMb: number; messages: number }> {
  const { cwd, home } = { cwd: join(root, "honest", "ws"), home: join(root, "honest", "home") };
  return (await runChild({
    MITSU_BENCH_MODE: "resume",
    MITSU_BENCH_RESUME: path,
    MITSU_BENCH_CWD: cwd,
    MITSU_BENCH_HOME: home,
  })) as never;
}

const n = (v: number) => Math.round(v).toLocaleString("en-US");
const mb = (v: number) => `${v.toFixed(0)} MB`;
const pct = (a: number, b: number) => (b === 0 ? "–" : `${((100 * a) / b).toFixed(1)}%`);

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "mitsu-bench-long-"));
  try {
    const honest = await session(root, false);
    // MITSU_BENCH_ONLY=honest: the one session, for profiling it.
    if (process.env.MITSU_BENCH_ONLY === "honest") {
      console.log(
        `honest: peak RSS ${mb(honest.maxRssMb)}, CPU per turn ${(honest.cpuMs / TURNS).toFixed(1)} ms, largest ${n(honest.largest)}, compactions ${honest.compactions}`,
      );
      return;
    }
    const under = await session(root, true);
    console.log(
      `\nbench/long-session — ${TURNS} Read calls of ~100 KB (~25k tokens each), window ${n(WINDOW)}, max_tokens ${n(MAX_OUTPUT)} (simulator, Anthropic cache rules; the agent in its own process)\n`,
    );
    console.log("|                              | honest usage | under-reported (100/call) |");
    console.log("| ---------------------------- | ------------ | ------------------------- |");
    const row = (name: string, a: string, b: string) =>
      console.log(`| ${name.padEnd(28)} | ${a.padStart(12)} | ${b.padStart(25)} |`);
    row("run ended", honest.reason, under.reason);
    row("peak RSS", mb(honest.maxRssMb), mb(under.maxRssMb));
    row("CPU per turn", `${(honest.cpuMs / TURNS).toFixed(1)} ms`, `${(under.cpuMs / TURNS).toFixed(1)} ms`);
    row("largest request (server)", n(honest.largest), n(under.largest));
    row("largest / window", pct(honest.largest, WINDOW), pct(under.largest, WINDOW));
    row("requests refused (too long)", n(honest.refused), n(under.refused));
    row("compactions (summaries)", n(honest.compactions), n(under.compactions));
    row("trims (no summary)", n(honest.trims), n(under.trims));
    row("requests", n(honest.requests), n(under.requests));
    row("cache-read share", pct(honest.read, honest.sent), pct(under.read, under.sent));
    row("session file", mb(honest.sessionBytes / 1e6), mb(under.sessionBytes / 1e6));
    if (honest.error || under.error) console.log(`\nerrors: ${honest.error ?? "–"} / ${under.error ?? "–"}`);

    const sizes = quick ? [10] : [10, 100];
    const dir = join(root, "sessions");
    const rows: Array<[string, Awaited<ReturnType<typeof resume>>]> = [];
    for (const size of sizes) {
      const path = writeSession(join(dir, String(size)), join(root, "honest", "ws"), size * 1e6);
      rows.push([`${size} MB (written)`, await resume(root, path)]);
    }
    rows.push([
      `${(honest.sessionBytes / 1e6).toFixed(0)} MB (the honest run)`,
      await resume(root, honest.sessionPath),
    ]);
    console.log(
      "\nresume (open the coding agent on the session file: read, check, rebuild the transcript, lock)\n",
    );
    console.log("| session                      | CPU      | wall     | peak RSS | messages |");
    console.log("| ---------------------------- | -------- | -------- | -------- | -------- |");
    for (const [name, r] of rows)
      console.log(
        `| ${name.padEnd(28)} | ${`${(r.cpuMs / 1000).toFixed(2)} s`.padStart(8)} | ${`${(r.wallMs / 1000).toFixed(2)} s`.padStart(8)} | ${mb(r.maxRssMb).padStart(8)} | ${String(r.messages).padStart(8)} |`,
      );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
