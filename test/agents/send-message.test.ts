import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { Simulator } from "../../src/simulator/index.js";
import type { LoggedRequest, SimTurn } from "../../src/simulator/types.js";
import { cleanDirs, codingAgentOn, isChildRequest, PROVIDERS, routedSimulator } from "./agents-support.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  cleanDirs();
});

const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });
const task = (id: string, prompt: string, extra: Record<string, unknown> = {}): SimTurn => ({
  content: [
    {
      type: "tool_use",
      id,
      name: "Task",
      input: { description: "look", prompt, subagent_type: "general-purpose", ...extra },
    },
  ],
});
/** The messages of a request, in the neutral sense: the body's list (whatever the wire format calls it). */
const messagesOf = (r: LoggedRequest): unknown[] => {
  const body = r.body as Record<string, unknown>;
  return (body.messages ?? body.contents ?? body.input) as unknown[];
};

/** Runs a prompt; once a Task result names its agent id, `then(id)` fills in the next scripted turn. */
async function runFilling(
  run: AsyncGenerator<AgentEvent, unknown>,
  next: SimTurn,
  ...[first, second]:
    | [(id: string) => SimTurn["content"]]
    | [() => Promise<void>, (id: string) => SimTurn["content"]]
) {
  const before = second ? (first as () => Promise<void>) : undefined;
  const then = (second ?? first) as (id: string) => SimTurn["content"];
  const events: AgentEvent[] = [];
  for (;;) {
    const step = await run.next();
    if (step.done) return events;
    const e = step.value;
    events.push(e);
    if (e.type === "tool-call-end" && e.block.name === "Task" && e.agentPath.length === 0) {
      const id = /agent id (a[0-9a-f]{8})/.exec(JSON.stringify(e.result.content))?.[1];
      if (id) {
        await before?.();
        next.content = then(id);
      }
    }
  }
}

describe.each(PROVIDERS)("SendMessage on %s", (name, model) => {
  it("continues a finished sub-agent in its own transcript: its next request extends its previous one", async () => {
    const send: SimTurn = { content: [] };
    const routed = await routedSimulator(
      [task("call_t", "What is in notes.txt?"), send, text("It says milk, twice.")],
      [text("notes.txt says: remember the milk."), text("Yes, it mentions milk once.")],
    );
    sim = routed.sim;
    const { agent } = await codingAgentOn(sim, model);
    const events = await runFilling(agent.prompt("ask an agent, then ask it again"), send, (id) => [
      {
        type: "tool_use",
        id: "call_s",
        name: "SendMessage",
        input: { to: id, message: "Does it mention milk?" },
      },
    ]);
    const sent = events.find((e) => e.type === "tool-call-end" && e.block.name === "SendMessage");
    expect(sent?.type === "tool-call-end" && sent.result.is_error).toBeFalsy();
    expect(sent?.type === "tool-call-end" && JSON.stringify(sent.result.content)).toContain(
      "Yes, it mentions milk once.",
    );

    const children = sim.requests.filter(isChildRequest);
    expect(children).toHaveLength(2);
    const [before, after] = children.map(messagesOf);
    // The second request is the first one, then the child's answer, then the new message: append-only.
    expect(after!.slice(0, before!.length)).toEqual(before);
    expect(after).toHaveLength(before!.length + 2);
    expect(JSON.stringify(after!.at(-1))).toContain("Does it mention milk?");
    // And the system prompt and tools are the same bytes: the prefix is cached.
    const {
      messages: _m1,
      contents: _c1,
      input: _i1,
      ...prefix1
    } = children[0]!.body as Record<string, unknown>;
    const {
      messages: _m2,
      contents: _c2,
      input: _i2,
      ...prefix2
    } = children[1]!.body as Record<string, unknown>;
    expect(JSON.stringify(prefix2)).toBe(JSON.stringify(prefix1));
    const u1 = children[0]!.usage!;
    const u2 = children[1]!.usage!;
    const total1 =
      u1.input_tokens + (u1.cache_read_input_tokens ?? 0) + (u1.cache_creation_input_tokens ?? 0);
    expect(u2.cache_read_input_tokens ?? 0).toBeGreaterThanOrEqual(Math.floor(total1 * 0.9));
    console.log(
      `[${name}] SendMessage: the child's second request read ${u2.cache_read_input_tokens} tokens from the cache (its first had ${total1})`,
    );
    await agent.close();
  });
});

describe("nested sub-agents", () => {
  it.each([
    [1, false],
    [2, true],
  ])(
    "maxAgentDepth %i: a sub-agent has Task = %s; past the limit a Task call is an is_error result",
    async (depth, nests) => {
      const routed = await routedSimulator(
        [task("call_t", "Do it, with a helper."), text("Done.")],
        (request) => {
          const body = JSON.stringify(request.body);
          const hasTask = body.includes('"name":"Task"');
          // The child calls Task once; the grandchild (and a child that cannot nest) answers with text.
          if (hasTask && !body.includes("call_inner")) return task("call_inner", "Help with it.");
          if (!hasTask && !body.includes("call_inner") && !body.includes("Help with it.")) {
            return task("call_inner", "Help with it.");
          }
          return text(
            body.includes("Help with it.") && !body.includes("call_inner") ? "helped" : "child done",
          );
        },
      );
      sim = routed.sim;
      // 2 through the environment variable (the command line's way), 1 as the default.
      const { agent } = await codingAgentOn(
        sim,
        "anthropic:claude-sonnet-4-5",
        depth === 2 ? { env: { MITSU_MAX_AGENT_DEPTH: "2" } } : {},
      );
      const events: AgentEvent[] = [];
      for await (const e of agent.prompt("go")) events.push(e);
      const inner = events.find((e) => e.type === "tool-call-end" && e.block.id === "call_inner");
      expect(inner?.agentPath).toEqual(["call_t"]);
      if (nests) {
        expect(inner?.type === "tool-call-end" && inner.result.is_error).toBeFalsy();
        // The grandchild's events carry a path of two.
        expect(events.some((e) => e.agentPath.length === 2 && e.type === "agent-end")).toBe(true);
        expect(events.some((e) => e.agentPath.length === 3)).toBe(false);
      } else {
        expect(inner?.type === "tool-call-end" && inner.result.is_error).toBe(true);
        expect(inner?.type === "tool-call-end" && JSON.stringify(inner.result.content)).toContain(
          "Unknown tool: Task",
        );
        expect(events.some((e) => e.agentPath.length === 2)).toBe(false);
      }
      await agent.close();
    },
  );
});

describe("SendMessage to a running background agent", () => {
  it("the message reaches it (its last call already made: it goes on with it); one answer reaches the main agent", async () => {
    const send: SimTurn = { content: [] };
    const routed = await routedSimulator(
      [
        task("call_bg", "Count the files.", { run_in_background: true }),
        send,
        text("Waiting."),
        text("It counted 3, not 4."),
      ],
      [{ ...text("There are 4 files."), latencyMs: 500 }, text("Excluding notes.txt, there are 3 files.")],
    );
    sim = routed.sim;
    const { agent } = await codingAgentOn(sim, "anthropic:claude-sonnet-4-5");
    const finished: string[] = [];
    agent.backgroundAgents?.onFinished((r) => finished.push(r.status));
    // The message is sent once the agent's model call is in flight (before, its first request would carry it).
    const childCalling = async () => {
      while (!sim!.requests.some(isChildRequest)) await new Promise((r) => setTimeout(r, 10));
    };
    await runFilling(agent.prompt("count in the background"), send, childCalling, (id) => [
      {
        type: "tool_use",
        id: "call_s",
        name: "SendMessage",
        input: { to: id, message: "Leave out notes.txt." },
      },
    ]);
    // The main agent went idle while the agent ran; wait for it, then the next prompt carries its answer.
    await agent.backgroundAgents?.waitAny();
    expect(finished).toEqual(["completed"]);
    for await (const _ of agent.prompt("and?")) {
    }
    const children = sim.requests.filter(isChildRequest);
    expect(children).toHaveLength(2);
    expect(JSON.stringify(messagesOf(children[1]!).at(-1))).toContain("Leave out notes.txt.");
    const last = JSON.stringify(sim.requests.at(-1)!.body);
    expect(last.split("<background-agent id=").length - 1).toBe(1);
    expect(last).toContain("Excluding notes.txt, there are 3 files.");
    expect(last).not.toContain("There are 4 files.");
    await agent.close();
  });
});
