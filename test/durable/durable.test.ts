import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDurableAgent,
  createSessionClient,
  DurableError,
  freePort,
  type RestateServer,
  registerWorker,
  type SessionClient,
  serveWorker,
  startRestateServer,
  type WorkerEndpoint,
} from "../../src/durable/index.js";
import { appendPrompt } from "../../src/harness/append-prompt.js";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import { runAgentToEnd } from "../../src/loop/run-agent.js";
import type { Tool } from "../../src/loop/tool.js";
import type { Message } from "../../src/messages/index.js";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
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
    return `counted ${input.n}`;
  },
} as unknown as Tool<never>;

const SYSTEM = "You count when asked.";

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
    setup: () => ({
      provider: provider(),
      model: "claude-sonnet-4-5",
      system: SYSTEM,
      tools: [countTool],
      permissions: (_tool, input) =>
        (input as { n: number }).n >= 100
          ? {
              behavior: "ask",
              display: `Count(${(input as { n: number }).n})`,
              reason: "big numbers need a yes",
            }
          : { behavior: "allow" },
    }),
    workspace: (id, requested) => {
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

describe("a durable session", () => {
  it("runs two prompts with tool calls; the transcript in state equals an in-process run's, request for request", async () => {
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
        tools: [countTool],
        messages: appendPrompt(messages, prompt),
        liveInput: false,
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
    expect(counted.map((c) => c.n)).toEqual([1, 2, 3, 4]);
    expect(sim.requests.map((r) => r.body)).toEqual(local.requests.map((r) => r.body));
    expect(sim.requests.every((r) => r.status === 200)).toBe(true);
    await sim.close();
    sim = undefined;
  });

  it("suspends on an ask with no worker busy, resumes when approved; an unanswered ask is denied at its deadline", async () => {
    counted.length = 0;
    sim = await startSimulator({
      script: [
        turn({ type: "tool_use", name: "Count", input: { n: 100, tag: "approved" } }),
        turn({ type: "text", text: "Counted big." }),
        turn({ type: "tool_use", name: "Count", input: { n: 200, tag: "late" } }),
        turn({ type: "text", text: "Could not count." }),
      ],
    });
    const asked: string[] = [];
    const answer = client.prompt(
      "approval",
      { prompt: "count big" },
      { onPending: (ask) => asked.push(ask.display) },
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
    // The waiting client is told of the question (to show the person how to answer it).
    await until(() => asked.length === 1, 20_000, "the client to hear of the question");
    const approved = await runMitsu(
      ["remote", "approve", "--session", "approval", "--ingress", server.ingressUrl],
      { cwd: root, home: root, env: {} },
    );
    // The CLI talks to the default object name; this test's object has its own, so the CLI says so clearly.
    expect(approved.code).toBe(1);
    expect(approved.stderr).toContain("knows no mitsu-session object");
    await client.approve("approval", { toolUseId: ask?.toolUseId as string });
    expect(await answer).toMatchObject({ reason: "end_turn", text: "Counted big." });
    expect(counted).toEqual([{ n: 100, tag: "approved" }]);
    expect(asked).toEqual(["Count(100)"]);
    await expect(client.approve("approval")).rejects.toThrow("waits for no permission answer");

    const late = await client.prompt("approval", { prompt: "count bigger", askTimeoutMs: 1500 });
    expect(late).toMatchObject({ reason: "end_turn", text: "Could not count." });
    expect(counted).toHaveLength(1);
    const transcript = await client.transcript("approval");
    expect(checkTranscript(transcript)).toEqual([]);
    const denied = transcript.at(-2)?.content[0];
    expect(denied).toMatchObject({ type: "tool_result", is_error: true });
    expect(JSON.stringify(denied)).toContain("nobody answered the permission question within 1.5 s");
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
    expect(first.services).toEqual(["other-session"]);
    expect(refused).toBeInstanceOf(DurableError);
    expect((refused as DurableError).message).toContain(
      `The worker URL ${changed.url} is registered already (${first.id}) with other-session, not renamed-session`,
    );
    expect(first.created).toBe(true);
    expect(again.created).toBe(false);

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
});
