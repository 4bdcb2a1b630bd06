import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../simulator/index.js";
import { createCodingAgent } from "./create-coding-agent.js";

let sim: Simulator | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

describe("the session's cost", () => {
  it("prices every call from models.json (cache reads and writes at their rates), the summary included, and a resumed session keeps its earlier cost", async () => {
    const server = await startSimulator({ script: [text("one"), text("two"), text("<summary>s</summary>")] });
    sim = server;
    const root = mkdtempSync(join(tmpdir(), "mitsu-cost-"));
    dirs.push(root);
    const cwd = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(cwd, { recursive: true });
    mkdirSync(join(home, ".mitsu"), { recursive: true });
    const price = { input: 10, output: 100, cacheWrite5m: 20, cacheWrite1h: 40, cacheRead: 1 };
    writeFileSync(
      join(home, ".mitsu", "models.json"),
      JSON.stringify({ providers: { anthropic: { models: [{ id: "claude-sonnet-5-5", price }] } } }),
    );
    const env = { PATH: process.env.PATH, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: server.url };
    const options = { cwd, home, env, model: "anthropic:claude-sonnet-5-5" };
    const agent = await createCodingAgent(options);
    expect(agent.price).toEqual(price);
    for (const p of ["a", "b"]) for await (const _ of agent.prompt(p));
    await agent.compact();
    const usd = (u: NonNullable<(typeof server.requests)[number]["usage"]>) =>
      (u.input_tokens * 10 +
        u.output_tokens * 100 +
        u.cache_creation_input_tokens * 20 +
        u.cache_read_input_tokens) /
      1e6;
    const expected = server.requests.reduce((n, r) => n + usd(r.usage!), 0);
    const cost = agent.cost();
    expect(cost.calls).toBe(3);
    expect(cost.usd).toBeCloseTo(expected, 12);
    expect(cost.last?.usage.cache_read_input_tokens).toBeGreaterThan(0);

    const resumed = await createCodingAgent({ ...options, session: { resume: agent.sessionPath as string } });
    expect(resumed.cost().usd).toBeCloseTo(expected, 12);
    expect(resumed.cost().calls).toBe(3);
  });

  it("a model without a known price costs undefined, not zero", async () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-cost-"));
    dirs.push(root);
    const agent = await createCodingAgent({
      cwd: root,
      home: root,
      env: { ANTHROPIC_API_KEY: "k" },
      model: "anthropic:claude-unknown-9",
    });
    expect(agent.price).toBeUndefined();
    expect(agent.cost().usd).toBeUndefined();
  });
});
