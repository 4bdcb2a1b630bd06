/**
 * bench/compaction: a 200-turn scripted session (10 prompts of 20 model calls each; every tool call returns a
 * ~3,000-token output) through the whole coding agent (`createCodingAgent`) on the simulator, which counts
 * prompt-cache hits by Anthropic's rules, once with compaction (the default) and once without. It measures,
 * from the usage the simulator reported for each request:
 *  - the largest request against the model's 200,000-token context window (with compaction: never over);
 *  - tokens sent in all (fresh + cache reads + cache writes), cache reads, cache writes;
 *  - the summarisation requests' cache-read share (they reuse the session's cached prefix).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCodingAgent } from "../../src/harness/index.js";
import type { Tool } from "../../src/loop/tool.js";
import { type LoggedRequest, type SimTurn, startSimulator } from "../../src/simulator/index.js";

const quick = process.argv.includes("--quick");
const PROMPTS = quick ? 3 : 10;
const CALLS_PER_PROMPT = 20;
const OUTPUT_CHARS = 12_000;
const WINDOW = 200_000;

/** A tool whose output is large and different every call (a log, a listing): what fills a real session. */
const lookup: Tool<{ n: number }> = {
  name: "Lookup",
  description: "Returns the record with the given number.",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  readOnly: true,
  async run(input) {
    const line = `record ${input.n}: ${"lorem ipsum dolor sit amet ".repeat(3)}\n`;
    return line.repeat(Math.ceil(OUTPUT_CHARS / line.length)).slice(0, OUTPUT_CHARS);
  },
};

const isSummaryRequest = (request: LoggedRequest) =>
  JSON.stringify(request.body.messages.at(-1)).includes("about to be compacted");

/** The model: 19 Lookup calls per prompt, then an answer; asked for a summary, it writes ~300 tokens. */
function brain() {
  let call = 0;
  let total = 0;
  return (request: LoggedRequest): SimTurn => {
    if (isSummaryRequest(request))
      return {
        content: [
          {
            type: "text",
            text: `<summary>${"The user asked for records; looked up so far. ".repeat(25)}${total}</summary>`,
          },
        ],
      };
    if (call < CALLS_PER_PROMPT - 1) {
      call++;
      total++;
      return {
        content: [
          { type: "text", text: `Looking up record ${total}.` },
          { type: "tool_use", name: "Lookup", input: { n: total } },
        ],
      };
    }
    call = 0;
    return { content: [{ type: "text", text: `Done with this batch (${total} records).` }] };
  };
}

interface Figures {
  requests: number;
  summaries: number;
  maxRequest: number;
  overWindow: number;
  sent: number;
  read: number;
  written: number;
  uncached: number;
  summaryRead: number;
  summarySent: number;
  compactions: number;
}

async function session(compaction: boolean): Promise<Figures> {
  const root = mkdtempSync(join(tmpdir(), "mitsu-bench-compaction-"));
  const think = brain();
  const sim = await startSimulator({
    script: Array.from({ length: PROMPTS * CALLS_PER_PROMPT + 50 }, () => think),
  });
  try {
    const cwd = join(root, "ws");
    mkdirSync(cwd, { recursive: true });
    const agent = await createCodingAgent({
      cwd,
      home: join(root, "home"),
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: sim.url },
      model: "anthropic:claude-sonnet-5-5",
      tools: [lookup as unknown as Tool<never>],
      allowedTools: ["Lookup"],
      ...(compaction ? {} : { compaction: false as const }),
    });
    let compactions = 0;
    for (let p = 0; p < PROMPTS; p++) {
      const run = agent.prompt(`Look up the next ${CALLS_PER_PROMPT - 1} records (batch ${p + 1}).`, {
        maxTurns: 100,
      });
      for (;;) {
        const next = await run.next();
        if (next.done) {
          if (next.value.reason !== "end_turn")
            throw new Error(`prompt ${p + 1} ended with ${next.value.reason}: ${next.value.error?.message}`);
          break;
        }
        if (next.value.type === "history-replaced") compactions++;
      }
    }
    await agent.close();
    const served = sim.requests.filter((r) => r.status === 200 && r.usage);
    const f: Figures = {
      requests: served.length,
      summaries: 0,
      maxRequest: 0,
      overWindow: 0,
      sent: 0,
      read: 0,
      written: 0,
      uncached: 0,
      summaryRead: 0,
      summarySent: 0,
      compactions,
    };
    for (const r of served) {
      const u = r.usage!;
      const sent = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
      f.maxRequest = Math.max(f.maxRequest, sent);
      if (sent > WINDOW) f.overWindow++;
      f.sent += sent;
      f.read += u.cache_read_input_tokens;
      f.written += u.cache_creation_input_tokens;
      f.uncached += u.input_tokens;
      if (isSummaryRequest(r)) {
        f.summaries++;
        f.summaryRead += u.cache_read_input_tokens;
        f.summarySent += sent;
      }
    }
    return f;
  } finally {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const n = (v: number) => v.toLocaleString("en-US");
const pct = (a: number, b: number) => (b === 0 ? "–" : `${((100 * a) / b).toFixed(1)}%`);

async function main(): Promise<void> {
  const turns = PROMPTS * CALLS_PER_PROMPT;
  const withC = await session(true);
  const without = await session(false);
  console.log(
    `\nbench/compaction — ${turns}-turn scripted session (${PROMPTS} prompts × ${CALLS_PER_PROMPT} calls, ~${OUTPUT_CHARS / 4} tokens per tool output), window ${n(WINDOW)} (simulator, Anthropic cache rules)\n`,
  );
  console.log("|                         | with compaction |    without |");
  console.log("| ----------------------- | --------------- | ---------- |");
  const row = (name: string, a: string, b: string) =>
    console.log(`| ${name.padEnd(23)} | ${a.padStart(15)} | ${b.padStart(10)} |`);
  row("requests", n(withC.requests), n(without.requests));
  row("compactions", n(withC.compactions), n(without.compactions));
  row("largest request", n(withC.maxRequest), n(without.maxRequest));
  row("requests over window", n(withC.overWindow), n(without.overWindow));
  row("tokens sent", n(withC.sent), n(without.sent));
  row("cache reads", n(withC.read), n(without.read));
  row("cache writes", n(withC.written), n(without.written));
  row("uncached input", n(withC.uncached), n(without.uncached));
  row("cache-read share", pct(withC.read, withC.sent), pct(without.read, without.sent));
  console.log(
    `\nsummarisation requests: ${withC.summaries}; their input read from the cache: ${n(withC.summaryRead)}/${n(withC.summarySent)} (${pct(withC.summaryRead, withC.summarySent)})`,
  );
  console.log(
    `with compaction the largest request is ${pct(withC.maxRequest, WINDOW)} of the window; without, ${without.overWindow} requests pass it (a real API would refuse them).`,
  );
}

await main();
