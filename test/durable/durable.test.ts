import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTaskTool } from "../../src/agents/task-tool.js";
import { main } from "../../src/cli/main.js";
import { injectReminders, reminderBlock } from "../../src/context/reminder-engine.js";
import {
  createDurableAgent,
  createSessionClient,
  type DurableAgentOptions,
  DurableError,
  freePort,
  type RestateServer,
  registerWorker,
  type SessionClient,
  type SessionEvent,
  serveWorker,
  startRestateServer,
  type WorkerEndpoint,
} from "../../src/durable/index.js";
import { appendPrompt } from "../../src/harness/append-prompt.js";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import { emptyUsage, type Message, type UserMessage } from "../../src/messages/index.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import type { ModelRequest } from "../../src/providers/provider.js";
import { type ScriptEntry, type SimTurn, type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runMitsu } from "../cli/cli-harness.js";
import { query, startWorkerProcess, until } from "./durable-harness.js";

const OBJECT = "test-session";
let server: RestateServer;
let root: string;
/** The simulator the in-process agent's setup points at (each test starts its own). */
let sim: Simulator | undefined;
let inProcess: WorkerEndpoint;
let client: SessionClient;
/** Every Count call the in-process agent ran: its input. */
const counted: Array<{ n: number; tag?: string }> = [];

const countTool = {
  name: "Count",
  description: "Counts once.",
  inputSchema: {
    type: "object",
    properties: { n: { type: "number" }, tag: { type: "string" } },
    required: ["n"],
    additionalProperties: false,
  },
  async run(input: { n: number; tag?: string }) {
    counted.push(input);
    // A call tagged "hold" runs until the test lets it end (a session that runs while it is followed).
    if (input.tag === "hold") await held;
    return `counted ${input.n}`;
  },
} as unknown as Tool<never>;

/** What a Count call tagged "hold" waits for. */
let held: Promise<void> = Promise.resolve();

/** Holds the Count calls tagged "hold" from now until the function returned is called. */
function holdCounts(): () => void {
  let release = () => {};
  held = new Promise((resolve) => {
    release = resolve;
  });
  return release;
}

const SYSTEM = "You count when asked.";

const taskTool = createTaskTool({
  agents: [
    { name: "counter", description: "Counts.", prompt: "You are a counter.", tools: ["Count"] },
    { name: "lead", description: "Has counters count.", prompt: "You lead counters.", tools: ["Task"] },
  ],
}) as unknown as Tool<never>;

function provider() {
  if (!sim) throw new Error("no simulator");
  return createAnthropicProvider({ apiKey: "sim-key", baseURL: sim.url });
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mitsu-durable-test-"));
  server = await startRestateServer({
    inactivityTimeout: "1s",
    env: {
      RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: "50ms",
      RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: "500ms",
    },
  });
  const agent = createDurableAgent({
    name: OBJECT,
    // Turns take the earlier messages from this worker's memory (the digest in the state checked), not the journal.
    ingressUrl: server.ingressUrl,
    // One model turn per invocation (the mitsu worker's default, 4, runs in the worker process tests): each turn's
    // tool results are stored by one invocation and sent, with the next turn's reminders, by the next.
    turnsPerInvocation: 1,
    setup: (session) => ({
      provider: provider(),
      model: "claude-sonnet-4-5",
      system: SYSTEM,
      tools: [countTool, taskTool],
      ...(session.id === "e2e" ? { reminders: (request: ModelRequest) => [countReminder(request)] } : {}),
      // The Task tool's sub-agents run as sessions of their own (the spawner here only says that it can spawn).
      // biome-ignore lint/correctness/useYield: never called; its presence turns durable sub-agents on.
      spawn: async function* () {
        return { reason: "error", messages: [], usage: emptyUsage() };
      },
      permissions: (_tool, input) =>
        (input as { n: number }).n >= 100
          ? {
              behavior: "ask",
              display: `Count(${(input as { n: number }).n})`,
              reason: "big numbers need a yes",
            }
          : { behavior: "allow" },
    }),
    workspace: (_id, requested) => {
      if (requested === undefined) return undefined;
      if (requested.includes(".."))
        throw new Error(`The workspace ${requested} is outside the workspaces folder`);
      return join(root, "ws", requested);
    },
  });
  inProcess = await serveWorker({ services: [agent], port: 0, host: "127.0.0.1", logLevel: "silent" });
  await registerWorker(server.adminUrl, inProcess.url);
  client = createSessionClient({ ingressUrl: server.ingressUrl, name: OBJECT, pollMs: 50 });
}, 60_000);

afterAll(async () => {
  await inProcess?.close();
  await sim?.close();
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

const turn = (...content: SimTurn["content"]): SimTurn => ({ content });

/** `mitsu remote <args> --object OBJECT --ingress <the server's> <extra>`, run in the test's folder. */
function remote(args: string[], extra: string[] = []) {
  return runMitsu(["remote", ...args, "--object", OBJECT, "--ingress", server.ingressUrl, ...extra], {
    cwd: root,
    home: root,
    env: {},
  });
}

/**
 * A worker in this process serving one more session object (`agent.name`), registered with the server, and a
 * client of its sessions; the caller closes `worker`.
 */
async function extraWorker(agent: DurableAgentOptions & { name: string }, protocol?: "http2") {
  const worker = await serveWorker({
    services: [createDurableAgent(agent)],
    port: 0,
    host: "127.0.0.1",
    logLevel: "silent",
    ...(protocol ? { protocol } : {}),
  });
  try {
    const registration = await registerWorker(server.adminUrl, worker.url, { http2: protocol === "http2" });
    const client = createSessionClient({ ingressUrl: server.ingressUrl, name: agent.name, pollMs: 50 });
    return { worker, registration, client };
  } catch (error) {
    await worker.close();
    throw error;
  }
}

/** A per-turn reminder, as a local session's context adds one (computed from the request). */
const countReminder = (request: ModelRequest) =>
  reminderBlock(
    `${request.messages.length} messages so far; the last has ${request.messages.at(-1)?.content.length} blocks.`,
  );

describe("a durable session", () => {
  it("runs two prompts with tool calls and per-turn reminders; the transcript in state equals an in-process run's, request for request, byte for byte", async () => {
    const script = (): ScriptEntry[] => [
      turn({ type: "text", text: "Counting." }, { type: "tool_use", name: "Count", input: { n: 1 } }),
      turn(
        { type: "tool_use", name: "Count", input: { n: 2 } },
        { type: "tool_use", name: "Count", input: { n: 3 } },
      ),
      turn({ type: "text", text: "Counted to three." }),
      turn({ type: "tool_use", name: "Count", input: { n: 4 } }),
      turn({ type: "text", text: "Four." }),
    ];
    // In process, the plain loop.
    const local = await startSimulator({ script: script() });
    let messages: Message[] = [];
    for (const prompt of ["count to three", "and four"]) {
      const result = await runAgentToEnd({
        provider: createAnthropicProvider({ apiKey: "sim-key", baseURL: local.url }),
        model: "claude-sonnet-4-5",
        system: SYSTEM,
        tools: [countTool, taskTool],
        messages: appendPrompt(messages, prompt),
        liveInput: false,
        prepareRequest: (request) => {
          const last = request.messages.at(-1) as UserMessage;
          return {
            ...request,
            messages: [...request.messages.slice(0, -1), injectReminders(last, [countReminder(request)])],
          };
        },
      });
      messages = result.messages;
    }
    await local.close();
    counted.length = 0;

    sim = await startSimulator({ script: script() });
    const first = await client.prompt("e2e", { prompt: "count to three" });
    expect(first).toMatchObject({ reason: "end_turn", text: "Counted to three.", messages: 6 });
    const second = await client.prompt("e2e", { prompt: "and four" });
    expect(second).toMatchObject({ reason: "end_turn", text: "Four.", messages: 10 });

    const stored = await client.transcript("e2e");
    expect(checkTranscript(stored)).toEqual([]);
    expect(stored).toEqual(messages);
    // Each call ran once (2 and 3, asked for in one turn, run side by side: in either order).
    expect(counted.map((c) => c.n).sort()).toEqual([1, 2, 3, 4]);
    expect(sim.requests.map((r) => r.body)).toEqual(local.requests.map((r) => r.body));
    // Byte for byte, and with a reminder in each request's newest message (the tool results' too).
    expect(JSON.stringify(sim.requests.map((r) => r.body))).toBe(
      JSON.stringify(local.requests.map((r) => r.body)),
    );
    expect(
      sim.requests.every((r) => JSON.stringify(r.body.messages.at(-1)).includes("messages so far")),
    ).toBe(true);
    expect(sim.requests.every((r) => r.status === 200)).toBe(true);
    await sim.close();
    sim = undefined;
  });

  it("serves the same session from a worker over HTTP/2 (one stream per invocation)", async () => {
    counted.length = 0;
    sim = await startSimulator({
      script: [
        turn({ type: "tool_use", name: "Count", input: { n: 5 } }),
        turn({ type: "text", text: "Five." }),
      ],
    });
    const {
      worker: h2,
      registration,
      client: h2Client,
    } = await extraWorker(
      {
        name: "h2-session",
        setup: () => ({
          provider: provider(),
          model: "claude-sonnet-4-5",
          system: SYSTEM,
          tools: [countTool],
        }),
      },
      "http2",
    );
    try {
      expect(await h2Client.prompt("s", { prompt: "count five" })).toMatchObject({
        reason: "end_turn",
        text: "Five.",
      });
      expect(counted).toEqual([{ n: 5 }]);
      expect(checkTranscript(await h2Client.transcript("s"))).toEqual([]);
      const listed = (await (await fetch(`${server.adminUrl}/deployments`)).json()) as {
        deployments: Array<{ id: string; protocol_type: string }>;
      };
      expect(listed.deployments.find((d) => d.id === registration.id)?.protocol_type).toBe("BidiStream");
    } finally {
      await h2.close();
      await sim.close();
      sim = undefined;
    }
  });

  it("follows a session live: each event arrives when it happens (the call is woken, not polled); a finished session's history is printed and the command ends", async () => {
    counted.length = 0;
    const release = holdCounts();
    sim = await startSimulator({
      script: [
        turn(
          { type: "text", text: "Holding." },
          { type: "tool_use", name: "Count", input: { n: 5, tag: "hold" } },
        ),
        turn({ type: "text", text: "Held and done." }),
        turn({ type: "text", text: "Again, done." }),
        turn({ type: "text", text: "Hello back." }),
      ],
    });
    // Every events call the follower makes, counted: a follower that polled would make one after another.
    let eventCalls = 0;
    const follower = createSessionClient({
      ingressUrl: server.ingressUrl,
      name: OBJECT,
      fetch: (input, init) => {
        if (String(input).endsWith("/events")) eventCalls++;
        return fetch(input, init);
      },
    });
    const answer = client.prompt("followed", { prompt: "count and hold" });
    await until(() => counted.length === 1, 20_000, "the held call to start");
    const seen: Array<{ event: SessionEvent; at: number }> = [];
    const following = (async () => {
      for await (const event of follower.follow("followed")) seen.push({ event, at: Date.now() });
    })();
    // The history so far: the prompt and the answer that asked for the held call, while a prompt runs.
    await until(() => seen.length >= 2, 20_000, "the history");
    expect(seen.map(({ event }) => event.type)).toEqual(["message", "message"]);
    expect(JSON.stringify(seen[1]?.event)).toContain('"tag":"hold"');
    // Nothing happens for a while: the follower waits in one call (the server holds it), it does not poll.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(eventCalls).toBeLessThanOrEqual(2);
    expect(seen).toHaveLength(2);
    const releasedAt = Date.now();
    release();
    await following;
    const after = seen.slice(2).map(({ event }) => event);
    expect(after).toEqual([
      expect.objectContaining({ type: "message", index: 2 }),
      expect.objectContaining({ type: "message", index: 3 }),
      { type: "running", running: false },
    ]);
    expect(JSON.stringify(after[0])).toContain("counted 5");
    expect(JSON.stringify(after[1])).toContain("Held and done.");
    // The tool's result reached the follower as it was stored, not at the next poll (a bound, not a sleep).
    expect((seen[2]?.at ?? Number.POSITIVE_INFINITY) - releasedAt).toBeLessThan(5000);
    expect(await answer).toMatchObject({ reason: "end_turn", text: "Held and done." });
    // Following a finished session prints its history and ends.
    const followed = await remote(["follow", "--session", "followed"]);
    expect(followed).toMatchObject({ code: 0, stderr: "" });
    expect(followed.stdout).toBe(
      [
        "> count and hold",
        "Holding.",
        '● Count({"n":5,"tag":"hold"})',
        "  ⎿ counted 5",
        "Held and done.",
        "",
      ].join("\n"),
    );
    const json = await remote(["follow", "--session", "followed"], ["--json"]);
    expect(
      json.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).index),
    ).toEqual([0, 1, 2, 3]);
    const unknown = await remote(["follow", "--session", "nobody"]);
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining("Unknown session: nobody") });
    // A prompt sent with --follow prints the session's new messages (not its history), its answer among them.
    const again = await remote(["-p", "once more", "--session", "followed"], ["--follow"]);
    expect(again).toMatchObject({ code: 0, stdout: "> once more\nAgain, done.\n", stderr: "" });
    // And of a session not yet known: it waits for the prompt's run instead of calling the session unknown.
    const fresh = await remote(["-p", "hello", "--session", "followed-new"], ["--follow"]);
    expect(fresh).toMatchObject({ code: 0, stdout: "> hello\nHello back.\n", stderr: "" });
    await sim.close();
    sim = undefined;
  });

  it("without live events a stored message wakes no follower (no wake-up sent), and a follower still sees it within about a second", async () => {
    counted.length = 0;
    const release = holdCounts();
    sim = await startSimulator({
      script: [
        turn({ type: "tool_use", name: "Count", input: { n: 6, tag: "hold" } }),
        turn({ type: "text", text: "Quietly done." }),
      ],
    });
    const { worker: quiet, client: quietClient } = await extraWorker({
      name: "quiet-session",
      liveEvents: false,
      setup: () => ({ provider: provider(), model: "claude-sonnet-4-5", tools: [countTool] }),
    });
    try {
      const answer = quietClient.prompt("q", { prompt: "count quietly" });
      await until(() => counted.length === 1, 20_000, "the held call to start");
      const seen: Array<{ event: SessionEvent; at: number }> = [];
      const following = (async () => {
        for await (const event of quietClient.follow("q")) seen.push({ event, at: Date.now() });
      })();
      await until(() => seen.length >= 2, 20_000, "the history");
      const releasedAt = Date.now();
      release();
      await following;
      expect(seen.map(({ event }) => event.type)).toEqual([
        "message",
        "message",
        "message",
        "message",
        "running",
      ]);
      // Seen at the follower's next look (it waits a second at most), not at its 25 s default.
      expect((seen[2]?.at ?? Number.POSITIVE_INFINITY) - releasedAt).toBeLessThan(5000);
      expect(await answer).toMatchObject({ reason: "end_turn", text: "Quietly done." });
      // The watch object was woken at the run's start and end only, never for a message.
      const wakes = await query<{ n: number }>(
        server,
        "SELECT count(*) AS n FROM sys_invocation WHERE target_service_name = 'quiet-session-watch' AND target_handler_name = 'notify'",
      );
      expect(Number(wakes[0]?.n)).toBe(2);
    } finally {
      await quiet.close();
      await sim.close();
      sim = undefined;
    }
  });

  it("suspends on an ask with no worker busy, resumes when approved; an unanswered ask is denied at its deadline", async () => {
    counted.length = 0;
    sim = await startSimulator({
      script: [
        turn({ type: "tool_use", name: "Count", input: { n: 100, tag: "approved" } }),
        turn({ type: "text", text: "Counted big." }),
        turn({ type: "tool_use", name: "Count", input: { n: 200, tag: "late" } }),
        turn({ type: "text", text: "Could not count." }),
        turn({ type: "tool_use", name: "Count", input: { n: 300, tag: "denied" } }),
        turn({ type: "text", text: "Told not to." }),
      ],
    });
    // The prompt goes through the mitsu command, which tells the person how to answer the question.
    let stderr = "";
    let stdout = "";
    const answer = main(
      [
        "remote",
        "-p",
        "count big",
        "--session",
        "approval",
        "--object",
        OBJECT,
        "--ingress",
        server.ingressUrl,
      ],
      {
        stdout: new Writable({
          write: (chunk, _enc, done) => {
            stdout += String(chunk);
            done();
          },
        }),
        stderr: new Writable({
          write: (chunk, _enc, done) => {
            stderr += String(chunk);
            done();
          },
        }),
        env: {},
        cwd: root,
        home: root,
      },
    );
    await until(async () => (await client.pending("approval")).length === 1, 20_000, "the question");
    const [ask] = await client.pending("approval");
    expect(ask).toMatchObject({ toolName: "Count", display: "Count(100)", reason: "big numbers need a yes" });
    // The invocation is suspended: it holds no worker while the question waits (inactivity timeout 1 s).
    await until(
      async () =>
        (
          await query<{ status: string }>(
            server,
            `SELECT status FROM sys_invocation WHERE target_service_key = 'approval' AND target_handler_name = 'prompt' AND status != 'completed'`,
          )
        ).some((row) => row.status === "suspended"),
      20_000,
      "the invocation to suspend",
    );
    expect(counted).toEqual([]);
    // mitsu remote list shows the sessions and their state: this one waits for an answer.
    const listed = await runMitsu(
      ["remote", "list", "--object", OBJECT, "--admin", server.adminUrl, "--json"],
      {
        cwd: root,
        home: root,
        env: {},
      },
    );
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual({
      id: "approval",
      state: "waiting",
      messages: 2,
      queued: 0,
    });
    await until(() => stderr.includes("waits for permission"), 20_000, "the command to show the question");
    // A follower is shown the question while the session waits (and follows the run to its end).
    const seen: SessionEvent[] = [];
    const following = (async () => {
      for await (const event of client.follow("approval")) seen.push(event);
    })();
    await until(
      () => seen.some((event) => event.type === "pending"),
      20_000,
      "the follower to see the question",
    );
    expect(seen.find((event) => event.type === "pending")).toMatchObject({
      ask: { display: "Count(100)", session: "approval" },
    });
    const wrongObject = await runMitsu(
      ["remote", "approve", "--session", "approval", "--ingress", server.ingressUrl],
      { cwd: root, home: root, env: {} },
    );
    expect(wrongObject.code).toBe(1);
    expect(wrongObject.stderr).toContain("knows no mitsu-session object");
    const approved = await remote(["approve", "--session", "approval"]);
    expect(approved).toMatchObject({ code: 0, stdout: expect.stringContaining("Approved: Count(100)") });
    // The follower saw the rest of the run, and ended with it.
    await following;
    expect(seen.map((event) => event.type)).toEqual([
      "message",
      "message",
      "pending",
      "message",
      "message",
      "running",
    ]);
    expect(await answer).toBe(0);
    expect(stdout).toBe("Counted big.\n");
    expect(stderr).toContain("Session approval waits for permission: Count(100) (toolu_");
    expect(stderr).toContain(`mitsu remote approve --session approval --call ${ask?.toolUseId}`);
    expect(counted).toEqual([{ n: 100, tag: "approved" }]);
    await expect(client.approve("approval")).rejects.toThrow("waits for no permission answer");

    const late = await client.prompt("approval", { prompt: "count bigger", askTimeoutMs: 1500 });
    expect(late).toMatchObject({ reason: "end_turn", text: "Could not count." });
    expect(counted).toHaveLength(1);
    const transcript = await client.transcript("approval");
    expect(checkTranscript(transcript)).toEqual([]);
    const denied = transcript.at(-2)?.content[0];
    expect(denied).toMatchObject({ type: "tool_result", is_error: true });
    expect(JSON.stringify(denied)).toContain("nobody answered the permission question within 1.5 s");

    const refused = client.prompt("approval", { prompt: "count 300" });
    await until(async () => (await client.pending("approval")).length === 1, 20_000, "the third question");
    const deniedByCli = await runMitsu(
      [
        "remote",
        "deny",
        "--session",
        "approval",
        "--object",
        OBJECT,
        "--message",
        "Not today.",
        "--ingress",
        server.ingressUrl,
      ],
      { cwd: root, home: root, env: {} },
    );
    expect(deniedByCli).toMatchObject({ code: 0, stdout: expect.stringContaining("Denied: Count(300)") });
    expect(await refused).toMatchObject({ reason: "end_turn", text: "Told not to." });
    expect((await client.transcript("approval")).at(-2)?.content[0]).toMatchObject({
      content: "Not today.",
      is_error: true,
    });
    expect(counted).toHaveLength(1);
    await sim.close();
    sim = undefined;
  });

  it("runs Task sub-agents as durable sessions of their own; a sub-agent's question is answered through its parent", async () => {
    counted.length = 0;
    // Requests of the parent and of the two children interleave: each is answered from its own transcript.
    const respond = (request: {
      body: { system?: Array<{ text: string }>; messages: Message[] };
    }): SimTurn => {
      const child = request.body.system?.some((block) => block.text === "You are a counter.");
      const messages = request.body.messages;
      const results = messages.at(-1)?.content.filter((block) => block.type === "tool_result") ?? [];
      if (!child)
        return results.length === 0
          ? turn(
              {
                type: "tool_use",
                name: "Task",
                input: { description: "count 7", prompt: "7", subagent_type: "counter" },
              },
              {
                type: "tool_use",
                name: "Task",
                input: { description: "count 500", prompt: "500", subagent_type: "counter" },
              },
            )
          : turn({
              type: "text",
              text: `Children said: ${results.map((r) => JSON.stringify(r.content)).join(" | ")}`,
            });
      const n = Number(JSON.stringify(messages[0]?.content).match(/\d+/)?.[0]);
      return results.length === 0
        ? turn({ type: "tool_use", name: "Count", input: { n, tag: "child" } })
        : turn({ type: "text", text: `child counted ${n}` });
    };
    sim = await startSimulator({ script: Array.from({ length: 6 }, () => respond) });
    const answer = client.prompt("parent", { prompt: "count with helpers" });
    await until(
      async () => (await client.pending("parent")).length === 1,
      20_000,
      "the sub-agent's question",
    );
    const [ask] = await client.pending("parent");
    expect(ask).toMatchObject({ display: "Count(500)", session: expect.stringMatching(/^parent\.toolu_/) });
    expect(counted).toEqual([{ n: 7, tag: "child" }]);
    await client.approve("parent");
    const done = await answer;
    expect(done.reason).toBe("end_turn");
    expect(done.text).toContain("child counted 7");
    expect(done.text).toContain("child counted 500");
    expect(counted.map((c) => c.n).sort()).toEqual([500, 7]);
    const parent = await client.transcript("parent");
    expect(checkTranscript(parent)).toEqual([]);
    const child = await client.transcript(ask?.session as string);
    expect(checkTranscript(child)).toEqual([]);
    expect(child.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(sim.requests.filter((r) => r.status === 200)).toHaveLength(6);
    await sim.close();
    sim = undefined;
  });

  it("runs a sub-agent's own sub-agent as a durable session too (two levels)", async () => {
    counted.length = 0;
    const respond = (request: {
      body: { system?: Array<{ text: string }>; messages: Message[] };
    }): SimTurn => {
      const system = request.body.system?.map((block) => block.text).join("") ?? "";
      const results =
        request.body.messages.at(-1)?.content.filter((block) => block.type === "tool_result") ?? [];
      const said = results.map((r) => JSON.stringify(r.content)).join(" | ");
      if (system.includes("You are a counter."))
        return results.length === 0
          ? turn({ type: "tool_use", name: "Count", input: { n: 3, tag: "grandchild" } })
          : turn({ type: "text", text: "grandchild counted 3" });
      const agent = system.includes("You lead counters.") ? "counter" : "lead";
      return results.length === 0
        ? turn({
            type: "tool_use",
            name: "Task",
            input: { description: `ask a ${agent}`, prompt: "3", subagent_type: agent },
          })
        : turn({ type: "text", text: `${agent === "counter" ? "lead" : "parent"} heard: ${said}` });
    };
    sim = await startSimulator({ script: Array.from({ length: 6 }, () => respond) });
    const done = await client.prompt("nest", { prompt: "count through a lead" });
    expect(done).toMatchObject({ reason: "end_turn" });
    expect(done.text).toContain("grandchild counted 3");
    expect(counted).toEqual([{ n: 3, tag: "grandchild" }]);
    const sessions = await query<{ key: string }>(
      server,
      "SELECT DISTINCT target_service_key AS key FROM sys_invocation WHERE target_handler_name = 'turn' AND target_service_key LIKE 'nest%'",
    );
    const keys = sessions.map((row) => row.key).sort((a, b) => a.length - b.length);
    expect(keys).toHaveLength(3);
    expect(keys[2]).toMatch(/^nest\.toolu_[^.]+\.toolu_[^.]+$/);
    await sim.close();
    sim = undefined;
  });

  it("cancels a running prompt: the run stops, its waiting call is answered, the transcript stays valid and usable", async () => {
    counted.length = 0;
    sim = await startSimulator({
      script: [
        turn({ type: "tool_use", name: "Count", input: { n: 100, tag: "cancelled" } }),
        turn({ type: "text", text: "After the cancel." }),
      ],
    });
    const running = client.prompt("cancel-me", { prompt: "count big" });
    await until(async () => (await client.pending("cancel-me")).length === 1, 20_000, "the question");
    const cancelled = await runMitsu(
      ["remote", "cancel", "--session", "cancel-me", "--object", OBJECT, "--admin", server.adminUrl],
      { cwd: root, home: root, env: {} },
    );
    expect(cancelled).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("Cancelled the running prompt"),
    });
    const response = await running;
    expect(response.reason).toBe("aborted");
    expect(counted).toEqual([]);
    expect(await client.pending("cancel-me")).toEqual([]);
    const transcript = await client.transcript("cancel-me");
    expect(checkTranscript(transcript)).toEqual([]);
    expect(transcript.at(-1)?.content[0]).toMatchObject({ type: "tool_result", is_error: true });
    // The session goes on with its next prompt.
    expect(await client.prompt("cancel-me", { prompt: "go on" })).toMatchObject({
      text: "After the cancel.",
    });
    await expect(
      createSessionClient({ ingressUrl: server.ingressUrl, adminUrl: server.adminUrl, name: OBJECT }).cancel(
        "cancel-me",
      ),
    ).rejects.toThrow("no prompt is running in session cancel-me");
    await sim.close();
    sim = undefined;
  });

  it("answers bad input with clear errors", async () => {
    await expect(client.transcript("never-prompted")).rejects.toMatchObject({
      name: "DurableError",
      status: 404,
      message: expect.stringContaining("Unknown session: never-prompted"),
    });
    await expect(client.approve("never-prompted")).rejects.toThrow("Unknown session: never-prompted");

    const post = (body: string) =>
      fetch(`${server.ingressUrl}/${OBJECT}/bad/prompt`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
    expect(await post('{"prompt": 5}')).toMatchObject({
      status: 400,
      text: expect.stringContaining(
        "Malformed prompt request: prompt must be a string or an array of content blocks",
      ),
    });
    expect(await post('{"prompt": "hi", "tools": []}')).toMatchObject({
      status: 400,
      text: expect.stringContaining("Malformed prompt request: unknown field"),
    });
    expect((await post("{not json")).status).toBe(400);
    await expect(client.prompt("bad", { prompt: "hi", workspace: "../../etc" })).rejects.toThrow(
      "outside the workspaces folder",
    );
    await expect(client.prompt("bad", { prompt: "hi", workspace: "missing" })).rejects.toMatchObject({
      status: 412,
      message: expect.stringContaining("is not on this worker"),
    });

    // The turn handler and the driver are not for the ingress: a turn cannot cut into a running prompt.
    const direct = (path: string) =>
      fetch(`${server.ingressUrl}/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ first: true, turn: 1, askTimeoutMs: 1000, prompt: { prompt: "hi" } }),
      });
    for (const path of [
      `${OBJECT}/bad/turn`,
      `${OBJECT}-run/bad/prompt`,
      `${OBJECT}/bad/snapshot`,
      `${OBJECT}-watch/bad/notify`,
    ])
      expect(await (await direct(path)).text()).toContain("is not public");

    // Registering the same worker again changes nothing; the same URL with other services is refused clearly.
    const again = await registerWorker(server.adminUrl, inProcess.url);
    const deployments = await (await fetch(`${server.adminUrl}/deployments`)).json();
    expect(
      (deployments as { deployments: Array<{ id: string }> }).deployments.filter((d) => d.id === again.id),
    ).toHaveLength(1);
    const other = await serveWorker({
      services: [
        createDurableAgent({ name: "other-session", setup: () => ({ provider: provider(), model: "m" }) }),
      ],
      port: 0,
      host: "127.0.0.1",
      logLevel: "silent",
    });
    const first = await registerWorker(server.adminUrl, other.url);
    await other.close();
    const changed = await serveWorker({
      services: [
        createDurableAgent({ name: "renamed-session", setup: () => ({ provider: provider(), model: "m" }) }),
      ],
      port: Number(new URL(other.url).port),
      host: "127.0.0.1",
      logLevel: "silent",
    });
    const refused = await registerWorker(server.adminUrl, changed.url, {
      services: ["renamed-session"],
    }).catch((error: unknown) => error);
    await changed.close();
    expect([...first.services].sort()).toEqual(["other-session", "other-session-run", "other-session-watch"]);
    expect(refused).toBeInstanceOf(DurableError);
    expect((refused as DurableError).message).toContain(
      `The worker URL ${changed.url} is registered already (${first.id}) with ${first.services.join(", ")}, not renamed-session`,
    );
    expect(first.created).toBe(true);
    expect(again.created).toBe(false);

    // No worker serves other-session now: an answer waits in the ingress's queue, and mitsu remote says so at
    // once (it waited for the server's timeout before, and blamed the ingress).
    const started = Date.now();
    const queued = await runMitsu(
      [
        "remote",
        "approve",
        "--session",
        "nobody",
        "--object",
        "other-session",
        "--ingress",
        server.ingressUrl,
      ],
      { cwd: root, home: root, env: {} },
    );
    expect(queued).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("the answer is queued (invocation "),
    });
    expect(queued.stdout).toContain("it reaches the session when a worker runs");
    expect(Date.now() - started).toBeLessThan(30_000);
    const invocation = /invocation (\S+)\)/.exec(queued.stdout)?.[1] ?? "";
    expect((await fetch(`${server.adminUrl}/invocations/${invocation}/kill`, { method: "PATCH" })).ok).toBe(
      true,
    );

    // A worker that cannot set the agent up (a missing key, an unknown model) fails the prompt with the reason.
    const { worker: broken, client: brokenClient } = await extraWorker({
      name: "broken-session",
      setup: () => {
        throw new Error("ANTHROPIC_API_KEY is not set");
      },
    });
    try {
      await expect(brokenClient.prompt("s", { prompt: "hi" })).rejects.toThrow(
        "The worker could not set up the agent for session s: ANTHROPIC_API_KEY is not set",
      );
    } finally {
      await broken.close();
    }

    // The server down at submit time.
    const down = createSessionClient({ ingressUrl: `http://127.0.0.1:${await freePort()}` });
    await expect(down.prompt("s", { prompt: "hi" })).rejects.toThrow(
      /Cannot reach the Restate ingress at .*Is the Restate server running\?/,
    );
    const cli = await runMitsu(
      ["remote", "-p", "hi", "--session", "s", "--ingress", `http://127.0.0.1:${await freePort()}`],
      { cwd: root, home: root, env: {} },
    );
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain("Cannot reach the Restate ingress");
  });

  it("survives kill -9 mid-tool and right after a model call: each tool ran once, no completed turn was sent again", async () => {
    const fleet = join(root, "fleet");
    const ws = join(fleet, "crash");
    mkdirSync(ws, { recursive: true });
    const crashSim = await startSimulator({
      script: [
        turn({
          type: "tool_use",
          name: "Bash",
          input: { command: "touch started-1 && sleep 2 && echo x >> counter-1.txt" },
        }),
        turn({ type: "tool_use", name: "Bash", input: { command: "sleep 1 && echo y >> counter-2.txt" } }),
        turn({ type: "text", text: "Both counted." }),
      ],
    });
    const port = await freePort();
    const worker = (home: string) =>
      startWorkerProcess({
        port,
        workspaces: fleet,
        home,
        env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: crashSim.url },
        // A replaced worker has not seen the session: it reads the transcript through the ingress.
        args: ["--allowedTools", "Bash", "--ingress", server.ingressUrl],
      });
    const home = join(root, "home");
    mkdirSync(home, { recursive: true });
    let current = await worker(home);
    try {
      await registerWorker(server.adminUrl, `http://127.0.0.1:${port}`);
      const fleetClient = createSessionClient({ ingressUrl: server.ingressUrl, pollMs: 50 });
      const answer = fleetClient.prompt("crash", { prompt: "count twice" });
      // 1. In the middle of the first tool call.
      await until(() => existsSync(join(ws, "started-1")), 20_000, "the first tool to start");
      await current.kill();
      current = await worker(home);
      // 2. Right after the second model call was journaled (its tool is about to run or running).
      // Its Run command, then the notification that completes it: the answer is in the journal.
      const journaled = async (name: string) => {
        // Each model turn is an invocation of the session's `turn` handler: the entries of the one that named it.
        const entries = await query<{ id: string; index: number; entry_type: string; name: string | null }>(
          server,
          `SELECT j.id, j.index, j.entry_type, j.name FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_key = 'crash' AND i.target_handler_name = 'turn' ORDER BY j.index`,
        );
        const command = entries.find((entry) => entry.name === name);
        return (
          command !== undefined &&
          entries.some(
            (e) => e.id === command.id && e.index > command.index && e.entry_type === "Notification: Run",
          )
        );
      };
      await until(() => journaled("model turn 2"), 20_000, "the second model call to be journaled");
      await current.kill();
      current = await worker(home);
      expect(await answer).toMatchObject({ reason: "end_turn", text: "Both counted." });
      expect(readFileSync(join(ws, "counter-1.txt"), "utf8")).toBe("x\n");
      expect(readFileSync(join(ws, "counter-2.txt"), "utf8")).toBe("y\n");
      expect(crashSim.requests.map((r) => r.status)).toEqual([200, 200, 200]);
      const transcript = await fleetClient.transcript("crash");
      expect(checkTranscript(transcript)).toEqual([]);
      expect(transcript.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
      ]);
      // The first call was cut off mid-run: its result, from the second attempt, says the first may have run.
      expect(JSON.stringify(transcript[2]?.content)).toContain(
        "an earlier attempt of this call was cut off when its worker stopped and may have partly run (state unknown)",
      );
      expect(JSON.stringify(transcript[2]?.content)).toContain(
        "Read a file it changes again before editing it",
      );

      // The same session through the mitsu command: a second prompt, then its transcript.
      crashSim.enqueue(turn({ type: "text", text: "Still two." }));
      const cli = await runMitsu(
        ["remote", "-p", "how many?", "--session", "crash", "--ingress", server.ingressUrl],
        { cwd: root, home: root, env: {} },
      );
      expect(cli).toMatchObject({ code: 0, stdout: "Still two.\n" });
      const shown = await runMitsu(
        ["remote", "transcript", "--session", "crash", "--ingress", server.ingressUrl],
        {
          cwd: root,
          home: root,
          env: {},
        },
      );
      expect(JSON.parse(shown.stdout)).toHaveLength(8);
    } finally {
      await current.stop();
      await crashSim.close();
    }
  }, 60_000);

  it("runs 50 sessions at once over 3 worker processes: all complete, transcripts valid, none lost", async () => {
    const fleet = join(root, "load");
    const ids = Array.from({ length: 50 }, (_, i) => `load-${i}`);
    for (const id of ids) mkdirSync(join(fleet, id), { recursive: true });
    // Each request is answered from its own transcript: a Bash call first, then the session's closing words.
    const respond = (request: { body: { messages: Message[] } }): SimTurn => {
      const messages = request.body.messages;
      const prompt = JSON.stringify(messages[0]?.content);
      const id = /load-\d+/.exec(prompt)?.[0] ?? "?";
      const answered = messages.at(-1)?.content.some((block) => block.type === "tool_result");
      return answered
        ? turn({ type: "text", text: `${id} done.` })
        : turn({ type: "tool_use", name: "Bash", input: { command: "echo $PPID > worker.pid" } });
    };
    const loadSim = await startSimulator({ script: Array.from({ length: ids.length * 2 }, () => respond) });
    const port = await freePort();
    const home = join(root, "load-home");
    mkdirSync(home, { recursive: true });
    const workers = await startWorkerProcess({
      port,
      workspaces: fleet,
      home,
      env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: loadSim.url },
      args: ["--allowedTools", "Bash", "--processes", "3", "--register", server.adminUrl],
    });
    try {
      await until(() => workers.output().includes("Registered with"), 20_000, "the registration");
      const loadClient = createSessionClient({ ingressUrl: server.ingressUrl, pollMs: 200 });
      const started = Date.now();
      const answers = await Promise.all(
        ids.map((id) => loadClient.prompt(id, { prompt: `You are ${id}. Work.` })),
      );
      const seconds = (Date.now() - started) / 1000;
      expect(answers.map((a) => a.text)).toEqual(ids.map((id) => `${id} done.`));
      for (const id of ids) {
        const transcript = await loadClient.transcript(id);
        expect(checkTranscript(transcript)).toEqual([]);
        expect(transcript).toHaveLength(4);
      }
      expect(loadSim.requests.filter((r) => r.status === 200)).toHaveLength(ids.length * 2);
      const pids = new Set(ids.map((id) => readFileSync(join(fleet, id, "worker.pid"), "utf8").trim()));
      expect(pids.size).toBeGreaterThan(1);
      console.log(
        `durable load: ${ids.length} sessions in ${seconds.toFixed(1)} s over worker processes ${[...pids].join(", ")}`,
      );
    } finally {
      await workers.stop();
      await loadSim.close();
    }
  }, 90_000);

  it("an Edit in a later prompt, on another worker process, needs no new Read (the files Read follow the session)", async () => {
    const fleet = join(root, "edits");
    const ws = join(fleet, "edit");
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, "notes.txt"), "old line\n");
    writeFileSync(join(ws, "AGENTS.md"), "Always keep notes short.\n");
    const editSim = await startSimulator({
      script: [
        turn({ type: "tool_use", name: "Read", input: { file_path: join(ws, "notes.txt") } }),
        turn({ type: "text", text: "It says old line." }),
        turn({
          type: "tool_use",
          name: "Edit",
          input: { file_path: join(ws, "notes.txt"), old_string: "old line", new_string: "new line" },
        }),
        turn({ type: "text", text: "Changed." }),
      ],
    });
    const port = await freePort();
    const home = join(root, "edit-home");
    mkdirSync(home, { recursive: true });
    const start = (...extra: string[]) =>
      startWorkerProcess({
        port,
        workspaces: fleet,
        home,
        env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: editSim.url },
        args: ["--allowedTools", "Edit", ...extra],
      });
    let worker = await start();
    try {
      await registerWorker(server.adminUrl, `http://127.0.0.1:${port}`);
      const editClient = createSessionClient({ ingressUrl: server.ingressUrl, pollMs: 50 });
      expect(await editClient.prompt("edit", { prompt: "read the notes" })).toMatchObject({
        text: "It says old line.",
      });
      await worker.stop();
      // The next worker keeps transcripts and tool state in memory: not having seen the session, it reads the
      // files Read (stored as changes) through the ingress.
      worker = await start("--ingress", server.ingressUrl);
      // A later prompt may name the session's workspace again, not another one.
      await expect(editClient.prompt("edit", { prompt: "move", workspace: "crash" })).rejects.toThrow(
        "a prompt cannot move it to crash",
      );
      expect(await editClient.prompt("edit", { prompt: "change it", workspace: "edit" })).toMatchObject({
        text: "Changed.",
      });
      expect(readFileSync(join(ws, "notes.txt"), "utf8")).toBe("new line\n");
      // The project instructions went with the session's first message, once; the next prompt is sent as it is.
      const requests = editSim.requests.map((r) => JSON.stringify(r.body.messages));
      expect(requests[0]).toContain("Always keep notes short.");
      expect(requests.at(-1)?.split("Always keep notes short.")).toHaveLength(2);
      const edited = (await editClient.transcript("edit")).at(-2)?.content[0];
      expect(edited).toMatchObject({ type: "tool_result" });
      expect((edited as { is_error?: boolean }).is_error).toBeUndefined();
    } finally {
      await worker.stop();
      await editSim.close();
    }
  }, 60_000);
});
