import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createSessionClient,
  freePort,
  type RestateServer,
  startRestateCluster,
} from "../../src/durable/index.js";
import { checkTranscript } from "../../src/loop/check-transcript.js";
import type { Message } from "../../src/messages/index.js";
import { type SimTurn, startSimulator } from "../../src/simulator/index.js";
import { startWorkerProcess, until } from "./durable-harness.js";

// Needs `npm run build` (the workers are the built `mitsu worker`).
let root: string;
let nodes: RestateServer[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "mitsu-durable-cluster-"));
  nodes = await startRestateCluster({
    env: {
      RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: "50ms",
      RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: "500ms",
    },
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  rmSync(root, { recursive: true, force: true });
});

const turn = (...content: SimTurn["content"]): SimTurn => ({ content });

describe("a three-node Restate cluster", () => {
  it("runs 200 concurrent sessions over 4 worker processes while a node is killed, then while a worker is: all complete, each tool ran once or says it may have run before", async () => {
    const fleet = join(root, "fleet");
    const batch = (name: string, count: number) => Array.from({ length: count }, (_, i) => `${name}-${i}`);
    const first = batch("node", 200);
    const second = batch("worker", 100);
    for (const id of [...first, ...second]) mkdirSync(join(fleet, id), { recursive: true });
    // Each request is answered from its own transcript: a Bash call first (it appends a line and names its worker
    // process), then the session's closing words.
    const respond = (request: { body: { messages: Message[] } }): SimTurn => {
      const messages = request.body.messages;
      const id = /(node|worker)-\d+/.exec(JSON.stringify(messages[0]?.content))?.[0] ?? "?";
      const answered = messages.at(-1)?.content.some((block) => block.type === "tool_result");
      return answered
        ? turn({ type: "text", text: `${id} done.` })
        : turn({
            type: "tool_use",
            name: "Bash",
            input: { command: "echo ran >> ran.txt && echo $PPID > worker.pid" },
          });
    };
    const sim = await startSimulator({ script: Array.from({ length: 1000 }, () => respond) });
    const home = join(root, "home");
    mkdirSync(home, { recursive: true });
    const [one, two, three] = nodes as [RestateServer, RestateServer, RestateServer];
    const workers = await startWorkerProcess({
      port: await freePort(),
      workspaces: fleet,
      home,
      env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url },
      args: ["--allowedTools", "Bash", "--processes", "4", "--register", one.adminUrl],
    });
    try {
      await until(() => workers.output().includes("Registered with"), 30_000, "the registration");
      // Clients on the two nodes that stay; the third leads some partitions and is killed under load.
      const clients = [one, two].map((node) =>
        createSessionClient({ ingressUrl: node.ingressUrl, pollMs: 200 }),
      );
      // The registration reaches every node's ingress a moment later.
      for (const client of clients)
        await until(
          () =>
            client.pending("probe").then(
              () => true,
              () => false,
            ),
          30_000,
          "each ingress to know the sessions",
        );
      const run = (ids: string[]) =>
        Promise.all(ids.map((id, i) => clients[i % 2]?.prompt(id, { prompt: `You are ${id}. Work.` })));

      let started = Date.now();
      const firstAnswers = run(first);
      await until(() => sim.requests.length >= 100, 60_000, "the load to be under way");
      await three.kill();
      const answers = await firstAnswers;
      const nodeLossSeconds = (Date.now() - started) / 1000;
      expect(answers.map((a) => a?.text)).toEqual(first.map((id) => `${id} done.`));
      // A model call in flight when its partition's leader died (its answer not yet in the log) is sent again
      // when the invocation resumes on the new leader; a journaled one is not: at most one resend per turn.
      const nodeResent = sim.requests.length - first.length * 2;

      // Then a worker process is killed (kill -9) under load; node:cluster's primary starts another.
      const before = sim.requests.length;
      started = Date.now();
      const secondAnswers = run(second);
      await until(
        () => second.filter((id) => readable(join(fleet, id, "worker.pid"))).length >= 10,
        60_000,
        "the second load to be under way",
      );
      const victim = Number(
        readFileSync(
          join(fleet, second.find((id) => readable(join(fleet, id, "worker.pid"))) ?? "", "worker.pid"),
          "utf8",
        ),
      );
      process.kill(victim, "SIGKILL");
      const more = await secondAnswers;
      const workerLossSeconds = (Date.now() - started) / 1000;
      expect(more.map((a) => a?.text)).toEqual(second.map((id) => `${id} done.`));
      const resent = sim.requests.length - before - second.length * 2;

      const sent = new Map<string, number>();
      for (const request of sim.requests) {
        const id = /(node|worker)-\d+/.exec(JSON.stringify(request.body.messages[0]?.content))?.[0] ?? "?";
        sent.set(id, (sent.get(id) ?? 0) + 1);
      }
      for (const id of [...first, ...second]) expect(sent.get(id)).toBeLessThanOrEqual(4);
      const again: string[] = [];
      for (const id of [...first, ...second]) {
        const transcript = await clients[0]?.transcript(id);
        expect(checkTranscript(transcript ?? [])).toEqual([]);
        expect(transcript).toHaveLength(4);
        // Each tool ran once; one cut off (its line written, its result not yet journaled) ran again — on a loaded
        // machine a retried attempt can itself be cut off, so at least once, not exactly twice: Restate runs a
        // step at least once — and its result says that an earlier attempt may have run.
        const ran = readFileSync(join(fleet, id, "ran.txt"), "utf8");
        if (ran === "ran\n") continue;
        again.push(id);
        expect(ran).toMatch(/^(ran\n){2,}$/);
        expect(
          JSON.stringify(transcript?.[2]),
          `session ${id} ran its Bash ${ran.split("\n").length - 1} times`,
        ).toContain("may have partly run (state unknown)");
      }
      console.log(
        `durable cluster: ${first.length} sessions in ${nodeLossSeconds.toFixed(1)} s with a node killed (model calls in flight sent again: ${nodeResent}); ${second.length} in ${workerLossSeconds.toFixed(1)} s with worker process ${victim} killed (model calls in flight there sent again: ${resent}; tools cut off there and run again, told so: ${again.length})`,
      );
    } finally {
      await workers.stop();
      await sim.close();
    }
  }, 240_000);
});

function readable(path: string): boolean {
  try {
    return readFileSync(path, "utf8").trim() !== "";
  } catch {
    return false;
  }
}
