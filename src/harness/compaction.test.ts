import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import { type LoggedRequest, type Simulator, startSimulator } from "../simulator/index.js";
import type { SimTurn } from "../simulator/types.js";
import type { CodingAgentOptions } from "./coding-agent.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WINDOW = 16_000;

/** Whether the request is the summarisation request (its newest user message ends with the instruction). */
function isSummaryRequest(request: LoggedRequest): boolean {
  const last = request.body.messages.at(-1);
  const block = last?.content?.at?.(-1);
  return typeof block?.text === "string" && block.text.includes("about to be compacted");
}

/**
 * A model that works through `steps` Read calls of big files, then answers; asked for a summary, it writes one
 * that quotes the user. Every answer is decided from the request, so compaction may come at any turn.
 */
function brain(steps: number, done = "All files read.") {
  let step = 0;
  return (request: LoggedRequest): SimTurn => {
    if (isSummaryRequest(request))
      return {
        content: [
          {
            type: "text",
            text: `<summary>The user asked: "read every file". Read ${step} files so far.</summary>`,
          },
        ],
      };
    if (step < steps) {
      step++;
      return {
        content: [
          { type: "text", text: `Reading part ${step}.` },
          { type: "tool_use", name: "Read", input: { file_path: `part${step % 4}.txt` } },
        ],
      };
    }
    step = 0;
    return { content: [{ type: "text", text: done }] };
  };
}

async function setup(entries: number, extra: Partial<CodingAgentOptions> = {}, steps = 12) {
  const think = brain(steps);
  sim = await startSimulator({ script: Array.from({ length: entries }, () => think) });
  const root = mkdtempSync(join(tmpdir(), "mitsu-compaction-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  writeFileSync(
    join(home, ".mitsu", "models.json"),
    JSON.stringify({
      providers: { anthropic: { models: [{ id: "small", contextWindow: WINDOW, maxOutputTokens: 2000 }] } },
    }),
  );
  writeFileSync(join(cwd, "AGENTS.md"), "Always answer in haiku.\n");
  for (let i = 0; i < 4; i++)
    writeFileSync(join(cwd, `part${i}.txt`), `${`line ${i} of a long file\n`.repeat(400)}`);
  const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url };
  const options: CodingAgentOptions = {
    cwd,
    home,
    env,
    model: "anthropic:small",
    permissionMode: "bypassPermissions",
    ...extra,
  };
  return { sim, cwd, home, options, agent: await createCodingAgent(options) };
}

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

const sent = (u: LoggedRequest["usage"]) =>
  (u?.input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0);
const strip = (value: unknown): string =>
  JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v));

describe("compaction in the coding agent", () => {
  it("compacts inside a long run: the summary reads the cached prefix, no request passes the window, and the log resumes the compacted history", async () => {
    // A reserve large enough that the request that crosses the threshold (one Read more) still leaves room for
    // the summary's answer: the summary then extends it, cache and all.
    const { agent, sim, options } = await setup(60, { compaction: { reserveTokens: 4_000 } });
    expect(agent.compactionThreshold).toBeLessThan(WINDOW);
    const { result, events } = await drain(agent.prompt("read every file"));
    expect(result.reason).toBe("end_turn");

    const served = sim.requests.filter((r) => r.status === 200);
    for (const r of served) expect(sent(r.usage)).toBeLessThan(WINDOW);
    const summaries = served.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(0);

    // The summarisation request extends the request before it: same system and tools, every message unchanged.
    const at = served.indexOf(summaries[0] as LoggedRequest);
    const previous = served[at - 1] as LoggedRequest;
    const summary = summaries[0] as LoggedRequest;
    expect(strip(summary.body.system)).toBe(strip(previous.body.system));
    expect(strip(summary.body.tools)).toBe(strip(previous.body.tools));
    const prevMessages = previous.body.messages as unknown[];
    for (const [i, m] of prevMessages.slice(0, -1).entries())
      expect(strip(summary.body.messages[i])).toBe(strip(m));
    // Everything the request before it sent is read from the cache; only the new tail is paid in full.
    expect(summary.usage?.cache_read_input_tokens).toBe(
      (previous.usage?.cache_read_input_tokens ?? 0) + (previous.usage?.cache_creation_input_tokens ?? 0),
    );

    // The request after it starts from the summary, with the user's words, and the instructions sent again.
    const after = served[at + 1] as LoggedRequest;
    const first = JSON.stringify(after.body.messages[0]);
    expect(first).toContain("<summary>");
    expect(first).toContain("read every file");
    expect(JSON.stringify(after.body.messages)).toContain("Always answer in haiku.");
    const firstMessage = after.body.messages[0];
    expect(firstMessage.role).toBe("user");
    // A tool_result never starts the kept part without its tool_use.
    expect(JSON.stringify(firstMessage)).not.toContain("tool_result");

    const replaced = events.filter((e) => e.type === "history-replaced");
    expect(replaced.length).toBe(summaries.length);
    const r0 = replaced[0] as Extract<AgentEvent, { type: "history-replaced" }>;
    expect(r0.reason).toBe("compacted");
    expect(r0.tokensAfter).toBeLessThan(r0.tokensBefore as number);
    expect(agent.context.diagnostics.some((d) => d.epoch === "compacted")).toBe(true);
    expect(agent.context.warnings.filter((w) => w.code === "prefix-broken")).toEqual([]);
    // The summary call is counted in the run's usage.
    const total = served.reduce((n, r) => n + (r.usage?.output_tokens ?? 0), 0);
    expect(result.usage.output_tokens).toBe(total);

    const lines = readFileSync(agent.sessionPath as string, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const entry = lines.find((l) => l.type === "compaction");
    expect(entry.summary).toContain("read every file");
    expect(entry.tokensBefore).toBeGreaterThan(entry.tokensAfter);
    expect(entry.before).toBeGreaterThan(entry.messages.length);
    // The earlier transcript stays in the file.
    expect(lines.filter((l) => l.type === "message").length).toBeGreaterThan(result.messages.length);

    const resumed = await createCodingAgent({ ...options, session: { resume: agent.sessionPath as string } });
    expect(resumed.history).toEqual(agent.history);
  });

  it("/compact on demand: focus instructions reach the model, the next prompt starts a new epoch with the instructions again", async () => {
    const { agent, sim, options } = await setup(20, { compaction: false }, 3);
    await drain(agent.prompt("read three files"));
    await drain(agent.prompt("read three more"));
    expect(agent.compactionThreshold).toBeUndefined();
    const before = agent.history.length;
    const done = await agent.compact("the file names");
    expect(done.before).toBe(before);
    expect(agent.history.length).toBeLessThan(before);
    const summary = sim.requests.at(-1) as LoggedRequest;
    expect(isSummaryRequest(summary)).toBe(true);
    expect(JSON.stringify(summary.body.messages.at(-1))).toContain("focus on: the file names");
    expect(summary.usage?.cache_read_input_tokens ?? 0).toBeGreaterThan(0);

    await drain(agent.prompt("and now?"));
    const next = sim.requests.at(-1) as LoggedRequest;
    expect(JSON.stringify(next.body.messages)).toContain("Always answer in haiku.");
    expect(agent.context.diagnostics.filter((d) => d.epoch === "compacted")).toHaveLength(1);
    expect(agent.context.warnings.filter((w) => w.code === "prefix-broken")).toEqual([]);

    const resumed = await createCodingAgent({ ...options, session: { resume: agent.sessionPath as string } });
    // The log keeps the messages as sent (with their cache markers); the content is the same.
    expect(strip(resumed.history)).toBe(strip(agent.history));
  });

  it("previewCompaction shows the summarisation request without sending it", async () => {
    const { agent, sim } = await setup(10, {}, 2);
    await drain(agent.prompt("read two files"));
    const count = sim.requests.length;
    const preview = agent.previewCompaction("keep the numbers");
    expect(sim.requests.length).toBe(count);
    expect(preview.request.messages.length).toBe(agent.history.length + 1);
    expect(JSON.stringify(preview.request.messages.at(-1))).toContain("keep the numbers");
    expect(preview.removed + preview.kept.length).toBe(agent.history.length);
  });

  it("PreCompact hooks hear of an automatic compaction (trigger auto) and of /compact (trigger manual, its focus) before the summary is asked for", async () => {
    const heard: Array<{ trigger: string; instructions: string; summariesSent: number; session: string }> =
      [];
    let simulator: Simulator | undefined;
    const { agent, sim } = await setup(60, {
      hooks: {
        PreCompact: [
          {
            callback: (input) => {
              heard.push({
                trigger: input.trigger,
                instructions: input.custom_instructions,
                summariesSent: (simulator?.requests ?? []).filter(isSummaryRequest).length,
                session: input.session_id,
              });
              return {};
            },
          },
        ],
      },
    });
    simulator = sim;
    await drain(agent.prompt("read every file"));
    const automatic = sim.requests.filter((r) => r.status === 200 && isSummaryRequest(r)).length;
    expect(automatic).toBeGreaterThan(0);
    // One hook call per automatic compaction, each before its own summary request.
    expect(heard).toHaveLength(automatic);
    expect(heard.map((h) => h.trigger)).toEqual(Array(automatic).fill("auto"));
    expect(heard.map((h) => h.instructions)).toEqual(Array(automatic).fill(""));
    expect(heard.map((h) => h.summariesSent)).toEqual(heard.map((_, i) => i));
    expect(heard[0]?.session).toMatch(/^[0-9a-f-]{36}$/);

    await agent.compact("keep the file names");
    expect(heard).toHaveLength(automatic + 1);
    expect(heard.at(-1)).toMatchObject({
      trigger: "manual",
      instructions: "keep the file names",
      summariesSent: automatic,
    });
  });

  it("a PreCompact hook is not told of a /compact that has nothing to compact", async () => {
    const heard: string[] = [];
    const { agent } = await setup(1, {
      hooks: { PreCompact: [{ callback: (input) => void heard.push(input.trigger) }] },
    });
    await expect(agent.compact()).rejects.toThrow("nothing to compact");
    expect(heard).toEqual([]);
  });
});
