import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { Simulator } from "../../src/simulator/index.js";
import type { SimTurn } from "../../src/simulator/types.js";
import {
  cleanDirs,
  codingAgentOn,
  count,
  drain,
  isChildRequest,
  PROVIDERS,
  routedSimulator,
} from "./agents-support.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  cleanDirs();
});

const text = (t: string): SimTurn => ({ content: [{ type: "text", text: t }] });
const call = (id: string, name: string, input: unknown, latencyMs = 0): SimTurn => ({
  content: [{ type: "tool_use", id, name, input }],
  latencyMs,
});
const bgTask = (id: string, prompt: string) =>
  call(id, "Task", {
    description: "find the answer",
    prompt,
    subagent_type: "Explore",
    run_in_background: true,
  });
const bodyText = (sim: Simulator, i: number) => JSON.stringify(sim.requests[i]?.body);
const MARK = "<background-agent id=";

describe.each(PROVIDERS)("background sub-agents on %s", (_name, model) => {
  it("the main loop goes on while the child's model call is slow; its answer reaches the next request exactly once", async () => {
    const CHILD_LATENCY = 800;
    const routed = await routedSimulator(
      [
        bgTask("call_bg", "What is the answer?"),
        // The main agent keeps working while the child thinks.
        call("call_r1", "Read", { file_path: "notes.txt" }),
        // This call is in flight when the child ends.
        call("call_r2", "Read", { file_path: "notes.txt" }, CHILD_LATENCY + 400),
        text("The agent says 42."),
        text("Still 42."),
      ],
      [{ ...text("The answer is 42."), latencyMs: CHILD_LATENCY }],
    );
    sim = routed.sim;
    const { agent } = await codingAgentOn(sim, model);
    const finished: string[] = [];
    agent.backgroundAgents?.onFinished((r) => finished.push(`${r.id}:${r.status}`));
    const started = performance.now();
    const { result, events } = await drain(
      agent.prompt("ask an agent in the background, and read notes.txt"),
    );
    const elapsed = performance.now() - started;
    expect(result.reason).toBe("end_turn");

    const taskEnd = events.find((e) => e.type === "tool-call-end" && e.block.name === "Task");
    const taskText = taskEnd?.type === "tool-call-end" ? JSON.stringify(taskEnd.result.content) : "";
    const id = /agent id (a[0-9a-f]{8})/.exec(taskText)?.[1];
    expect(id).toBeDefined();
    expect(finished).toEqual([`${id}:completed`]);

    // Timing: the main agent's second and third requests were sent while the child's call was in flight.
    const child = routed.arrivals.find((a) => a.child)!;
    const mains = routed.arrivals.filter((a) => !a.child);
    const childEnd = child.at + CHILD_LATENCY;
    expect(mains[1]!.at).toBeLessThan(childEnd);
    expect(mains[2]!.at).toBeLessThan(childEnd);
    expect(mains[3]!.at).toBeGreaterThan(childEnd);
    console.log(
      `[${_name}] child request at ${child.at.toFixed(0)} ms, its answer ${CHILD_LATENCY} ms later; main requests at ${mains.map((a) => a.at.toFixed(0)).join(", ")} ms; whole prompt ${elapsed.toFixed(0)} ms`,
    );

    const mainIndexes = sim.requests.map((r, i) => (isChildRequest(r) ? -1 : i)).filter((i) => i >= 0);
    expect(mainIndexes).toHaveLength(4);
    // Not in the requests sent before the child ended; in the fourth, once, in its newest user message.
    for (const i of mainIndexes.slice(0, 3)) expect(count(bodyText(sim, i), MARK)).toBe(0);
    const fourth = bodyText(sim, mainIndexes[3]!);
    expect(count(fourth, MARK)).toBe(1);
    expect(fourth).toContain("The answer is 42.");
    const last = agent.history.at(-2)!;
    expect(last.role).toBe("user");
    expect(JSON.stringify(last)).toContain(MARK);

    // Its model call is in the session's cost, under its own path.
    const byAgent = Object.values(agent.cost().subagents);
    expect(byAgent).toHaveLength(1);
    expect(byAgent[0]!.usage.output_tokens).toBeGreaterThan(0);

    // The next prompt's request carries the history as it was sent: still exactly once, never added again.
    await drain(agent.prompt("and again?"));
    const fifth = bodyText(sim, sim.requests.length - 1);
    expect(count(fifth, MARK)).toBe(1);
    await agent.close();
  });

  it("TaskOutput waits for the answer (then no reminder repeats it); TaskStop stops a running one", async () => {
    // The third main turn needs the agents' ids: it is filled in once the Task results are known.
    const third: SimTurn = { content: [] };
    const routed = await routedSimulator(
      [
        bgTask("call_bg1", "first question"),
        bgTask("call_bg2", "second question, slow"),
        third,
        text("done"),
      ],
      (request) =>
        JSON.stringify(request.body).includes("slow")
          ? { ...text("never seen"), latencyMs: 30_000 }
          : { ...text("first answer"), latencyMs: 1500 },
    );
    sim = routed.sim;
    const { agent } = await codingAgentOn(sim, model);
    const ids: string[] = [];
    const run = agent.prompt("two agents");
    const events: AgentEvent[] = [];
    for (;;) {
      const next = await run.next();
      if (next.done) break;
      const e = next.value;
      events.push(e);
      if (e.type === "tool-call-end" && e.block.name === "Task") {
        ids.push(/agent id (a[0-9a-f]{8})/.exec(JSON.stringify(e.result.content))?.[1] ?? "?");
        if (ids.length === 2) {
          // Now the ids are known: the third turn reads the first and stops the second.
          Object.assign(third, {
            content: [
              {
                type: "tool_use",
                id: "call_out",
                name: "TaskOutput",
                input: { task_id: ids[0], timeout: 10_000 },
              },
              { type: "tool_use", id: "call_stop", name: "TaskStop", input: { task_id: ids[1] } },
            ],
          });
        }
      }
    }
    const output = events.find((e) => e.type === "tool-call-end" && e.block.name === "TaskOutput");
    const stop = events.find((e) => e.type === "tool-call-end" && e.block.name === "TaskStop");
    expect(output?.type === "tool-call-end" && JSON.stringify(output.result.content)).toContain(
      "first answer",
    );
    expect(stop?.type === "tool-call-end" && stop.result.is_error).toBeFalsy();
    expect(agent.backgroundAgents?.get(ids[1]!)?.status).toBe("stopped");
    // The answer TaskOutput returned (its one report) is not repeated as a reminder; the stopped one sends none.
    const last = bodyText(sim, sim.requests.length - 1);
    expect(count(last, MARK)).toBe(1);
    expect(count(last, "first answer")).toBe(1);
    await agent.close();
  });
});

describe("a background agent in the session log", () => {
  it("resuming a session whose background agent was still running tells the model it is gone", async () => {
    const routed = await routedSimulator(
      [bgTask("call_bg", "A long question."), text("It runs."), text("I will start it again.")],
      [{ ...text("never"), latencyMs: 30_000 }],
    );
    sim = routed.sim;
    const first = await codingAgentOn(sim, "anthropic:claude-sonnet-4-5");
    await drain(first.agent.prompt("start it"));
    const id = first.agent.backgroundAgents?.running()[0]?.id;
    expect(id).toMatch(/^a[0-9a-f]{8}$/);
    // The process ends with the agent still running (close stops it).
    await first.agent.close();

    const { createCodingAgent } = await import("../../src/harness/create-coding-agent.js");
    const warnings: string[] = [];
    const second = await createCodingAgent({
      onWarning: (message) => warnings.push(message),
      cwd: first.cwd,
      home: first.home,
      model: "anthropic:claude-sonnet-4-5",
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
      session: { continue: true },
    });
    await drain(second.prompt("where is its answer?"));
    const last = bodyText(sim, sim.requests.length - 1);
    expect(last).toContain(
      `still running when the previous session ended; they were stopped and their answers are lost: ${id}`,
    );
    await second.close();
  });
});
