import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CodingAgentOptions } from "../../src/harness/coding-agent.js";
import { createCodingAgent } from "../../src/harness/create-coding-agent.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { providerEnv } from "../../src/simulator/provider-env.js";
import type { LoggedRequest, SimTurn } from "../../src/simulator/types.js";

/** The three wire formats, by model spec. */
export const PROVIDERS = [
  ["anthropic", "anthropic:claude-sonnet-4-5"],
  ["openai", "openai:gpt-5"],
  ["gemini", "gemini:gemini-2.5-pro"],
] as const;

export interface Routed {
  sim: Simulator;
  /** Each request's arrival (ms since the simulator started) and whether it was a sub-agent's. */
  arrivals: Array<{ at: number; child: boolean; index: number }>;
}

/** A request of a sub-agent: its system prompt is an agent's own (the main one's never quotes it). */
export const isChildRequest = (request: LoggedRequest) => {
  const text = JSON.stringify(request.body);
  return text.includes("You are Explore") || text.includes("You are a sub-agent of mitsu");
};

/**
 * A simulator whose every request is answered by `route`: the main agent's turns and the children's come
 * from separate lists, whatever order their requests arrive in.
 */
export async function routedSimulator(main: SimTurn[], child: SimTurn[] | ((r: LoggedRequest) => SimTurn)) {
  const start = performance.now();
  const arrivals: Routed["arrivals"] = [];
  let index = 0;
  const route = (request: LoggedRequest): SimTurn => {
    const isChild = isChildRequest(request);
    arrivals.push({ at: performance.now() - start, child: isChild, index: index++ });
    const next = isChild ? (typeof child === "function" ? child(request) : child.shift()) : main.shift();
    if (!next) throw new Error(`no scripted turn left for the ${isChild ? "child" : "main agent"}`);
    return next;
  };
  const sim = await startSimulator({ script: Array.from({ length: 40 }, () => route) });
  return { sim, arrivals };
}

const dirs: string[] = [];
export function cleanDirs() {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function codingAgentOn(
  sim: Simulator,
  model: string,
  extra: Partial<CodingAgentOptions> & { toolSearchOff?: boolean } = {},
) {
  const { toolSearchOff, ...rest } = extra;
  const root = mkdtempSync(join(tmpdir(), "mitsu-agents2-"));
  dirs.push(root);
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
  const env = {
    PATH: process.env.PATH,
    ...providerEnv(sim.url),
    ...(toolSearchOff ? { MITSU_TOOL_SEARCH: "false" } : {}),
  };
  const options: CodingAgentOptions = { cwd, home, model, ...rest, env: { ...env, ...rest.env } };
  return { cwd, home, agent: await createCodingAgent(options) };
}

export { drain } from "../support/sim-coding-agent.js";

/** How often `needle` occurs in `haystack`. */
export const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
