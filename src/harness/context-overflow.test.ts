import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentResult } from "../loop/agent-event.js";
import { checkTranscript } from "../loop/check-transcript.js";
import {
  type LoggedRequest,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from "../simulator/index.js";
import { providerEnv } from "../simulator/provider-env.js";
import type { SimTurn, SimUsage } from "../simulator/types.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const WINDOW = 16_000;

/** A PNG header stating 2880 × 1800, then 3 MB of data: what a screenshot weighs. */
function screenshot(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2880, 0);
  ihdr.writeUInt32BE(1800, 4);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const body = Buffer.alloc(3 * 1024 * 1024);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7919) & 255;
  return Buffer.concat([signature, Buffer.from("IHDR"), ihdr, body]);
}
const MAX_OUTPUT = 2_000;

const isSummary = (request: LoggedRequest) => JSON.stringify(request.body).includes("about to be compacted");
const isChild = (request: LoggedRequest) => JSON.stringify(request.body).includes("You are Explore");

/** A server that reports 100 input tokens a call, whatever it was sent (as the test server did). */
const underReport = (u: SimUsage): SimUsage => ({
  ...u,
  input_tokens: 100,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

interface BrainOptions {
  steps: number;
  /** How a summary request is answered: a summary, or an error that is not retried. */
  summary?: "ok" | "fail";
  /** The parent first hands the reading to an Explore sub-agent. */
  delegate?: boolean;
  /** The files read are a 3 MB screenshot (`shot.png`, 2880 × 1800) instead of text. */
  png?: boolean;
}

/** A model that reads big files `steps` times (in a sub-agent, if asked), then answers. */
function brain(options: BrainOptions) {
  const steps = { parent: 0, child: 0 };
  return (request: LoggedRequest): SimTurn => {
    if (isSummary(request)) {
      if (options.summary === "fail")
        return { content: [], fault: { kind: "http", status: 400, times: 1_000 } };
      return { content: [{ type: "text", text: '<summary>The user asked: "read every file".</summary>' }] };
    }
    const who = isChild(request) ? "child" : "parent";
    if (who === "parent" && options.delegate) {
      if (steps.parent++ === 0)
        return {
          content: [
            {
              type: "tool_use",
              name: "Task",
              input: { description: "read", prompt: "read every file", subagent_type: "Explore" },
            },
          ],
        };
      return { content: [{ type: "text", text: "The sub-agent read them all." }] };
    }
    if (steps[who] < options.steps) {
      steps[who]++;
      return {
        content: [
          { type: "text", text: `Reading part ${steps[who]}.` },
          {
            type: "tool_use",
            name: "Read",
            input: { file_path: options.png ? "shot.png" : `part${steps[who] % 4}.txt` },
          },
        ],
      };
    }
    return { content: [{ type: "text", text: "All files read." }] };
  };
}

type Provider = "anthropic" | "openai" | "openai-responses" | "gemini";

async function setup(
  brainOptions: BrainOptions,
  simOptions: SimulatorOptions,
  provider: Provider = "anthropic",
  window = WINDOW,
) {
  const think = brain(brainOptions);
  sim = await startSimulator({ ...simOptions, script: Array.from({ length: 400 }, () => think) });
  const root = mkdtempSync(join(tmpdir(), "mitsu-overflow-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, ".mitsu"), { recursive: true });
  const model = { id: "small", contextWindow: window, maxOutputTokens: MAX_OUTPUT };
  writeFileSync(
    join(home, ".mitsu", "models.json"),
    JSON.stringify({ providers: { [provider]: { models: [model] } } }),
  );
  for (let i = 0; i < 4; i++)
    writeFileSync(join(cwd, `part${i}.txt`), `line ${i} of a long file\n`.repeat(400));
  if (brainOptions.png) writeFileSync(join(cwd, "shot.png"), screenshot());
  const env = {
    PATH: process.env.PATH,
    ...providerEnv(sim.url),
  };
  const agent = await createCodingAgent({
    cwd,
    home,
    env,
    model: `${provider}:small`,
    permissionMode: "bypassPermissions",
  });
  return { sim, agent, home };
}

async function drain(run: AsyncGenerator<AgentEvent, AgentResult>) {
  const events: AgentEvent[] = [];
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

/** What each request asked as answer room, whatever its wire. */
function maxTokensOf(request: LoggedRequest): number {
  const body = request.body;
  return body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens ?? 0;
}

/** No request the server counted (honestly) passed the window, the answer's room included. */
function expectNoneOver(server: Simulator) {
  const refused = server.requests.filter((r) => r.status !== 200);
  expect(refused.map((r) => r.error)).toEqual([]);
  for (const r of server.requests) {
    const u = r.usage as SimUsage;
    const sent = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    expect(sent + maxTokensOf(r)).toBeLessThanOrEqual(WINDOW);
  }
}

describe("no request over the window leaves mitsu, whatever the server reports", () => {
  for (const [name, reportUsage] of [
    ["under-reports (100 tokens a call)", underReport],
    ["reports no usage at all", "none"],
  ] as const) {
    it(`a server that ${name}: compaction still runs from the estimate`, async () => {
      const { agent, sim: server } = await setup({ steps: 24 }, { contextWindow: WINDOW, reportUsage });
      const { result, events } = await drain(agent.prompt("read every file"));
      expect(result.error).toBeUndefined();
      expect(result.reason).toBe("end_turn");
      expect(events.filter((e) => e.type === "history-replaced").length).toBeGreaterThan(1);
      expectNoneOver(server);
      await agent.close();
    });
  }

  it("a summary answer that fails is retried once, then the history is trimmed without a model call: said on screen, logged, and the session goes on", async () => {
    const { agent, sim: server } = await setup(
      { steps: 16, summary: "fail" },
      { contextWindow: WINDOW, reportUsage: underReport },
    );
    const { result, events } = await drain(agent.prompt("read every file"));
    expect(result.reason).toBe("end_turn");
    expect(checkTranscript(result.messages)).toEqual([]);
    const warnings = events.filter((e) => e.type === "warning" && e.code === "history-trimmed");
    expect(warnings.length).toBeGreaterThan(0);
    expect(JSON.stringify(warnings[0])).toContain("Automatic compaction failed twice");
    // A failed compaction asked for the summary twice; the next few trim at once (no calls to a failing model).
    const summaries = server.requests.filter(isSummary);
    expect(summaries.length).toBeGreaterThanOrEqual(2);
    expect(summaries.length).toBeLessThan(2 * warnings.length);
    for (const s of summaries) expect(s.status).toBe(400);
    // What was removed is said in the transcript itself (notes naming the calls, or the dropped messages).
    expect(JSON.stringify(result.messages)).toMatch(
      /was removed to fit the context window|earliest messages of this conversation were removed/,
    );
    // Served requests all fit (the refused ones are the scripted summary failures).
    for (const r of server.requests.filter((r) => r.status === 200)) {
      const u = r.usage as SimUsage;
      expect(u.input_tokens + u.cache_read_input_tokens + maxTokensOf(r)).toBeLessThanOrEqual(WINDOW);
    }
    const log = readFileSync(agent.sessionPath as string, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const trims = log.filter((line) => line.type === "compaction" && line.reason === "trimmed");
    expect(trims.length).toBe(warnings.length);
    expect(trims[0].notice).toContain("the history was trimmed instead");
    await agent.close();
  });

  it("a sub-agent compacts its own history (its own transcript logs it)", async () => {
    const { agent, sim: server } = await setup(
      { steps: 16, delegate: true },
      { contextWindow: WINDOW, reportUsage: underReport },
    );
    const { result, events } = await drain(agent.prompt("read every file, in a sub-agent"));
    expect(result.reason).toBe("end_turn");
    const childReplaced = events.filter((e) => e.type === "history-replaced" && e.agentPath.length === 1);
    expect(childReplaced.length).toBeGreaterThan(0);
    expect(server.requests.filter((r) => isChild(r) && isSummary(r)).length).toBeGreaterThan(0);
    expectNoneOver(server);
    await agent.close();
  });
});

describe("a provider's 'prompt too long' compacts and retries once instead of ending the turn", () => {
  for (const provider of ["anthropic", "openai", "openai-responses", "gemini"] as const) {
    it(`on ${provider}`, async () => {
      // The server counts a token per 2 characters, twice the client's estimate, and reports no usage: the
      // client's check cannot see the overflow coming, only the provider's refusal can tell it. (A larger
      // window: at that count mitsu's own system prompt and tools are some 11,000 tokens.)
      const window = 40_000;
      const { agent, sim: server } = await setup(
        { steps: 14 },
        { contextWindow: window, reportUsage: "none", charsPerToken: 2 },
        provider,
        window,
      );
      const { result, events } = await drain(agent.prompt("read every file"));
      expect(result.error).toBeUndefined();
      expect(result.reason).toBe("end_turn");
      const refused = server.requests.filter((r) => r.status === 400);
      expect(refused.length).toBeGreaterThan(0);
      const message = {
        anthropic: /prompt is too long|exceed context limit/,
        openai: /maximum context length/,
        "openai-responses": /exceeds the context window/,
        gemini: /input token count/,
      }[provider];
      for (const r of refused) expect(r.error).toMatch(message);
      expect(events.some((e) => e.type === "warning" && e.code === "prompt-too-long")).toBe(true);
      // Every refusal was followed by an accepted request: the retry fit.
      for (const r of refused) {
        const next = server.requests[server.requests.indexOf(r) + 1];
        expect(next?.status).toBe(200);
      }
      await agent.close();
    });
  }
});

describe("images are counted by their pixels (issue 21, item 6)", () => {
  it("a 3 MB PNG that was Read no longer makes automatic compaction wipe the conversation", async () => {
    // Usage reported honestly, by a server that prices the image as the provider does (and refuses a request
    // over the window).
    const { agent, sim: server } = await setup({ steps: 1, png: true }, { contextWindow: WINDOW });
    const { result, events } = await drain(agent.prompt("what is in shot.png?"));
    expect(result.reason).toBe("end_turn");
    // Before: the PNG's base64 counted as ~1,000,000 tokens of text, and the history was compacted to one message.
    expect(events.filter((e) => e.type === "history-replaced")).toEqual([]);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    const second = server.requests[1] as LoggedRequest;
    expect(JSON.stringify(second.body.messages[2])).toContain('"type":"image"');
    expect(agent.compactionThreshold).toBeLessThan(WINDOW);
    const u = second.usage as SimUsage;
    const imageTokens = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    expect(imageTokens).toBeLessThan(WINDOW);
    await agent.close();
  });
});
