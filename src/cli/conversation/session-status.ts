import type { CodingAgent, CostFigures } from "../../harness/index.js";
import { stripControls } from "../render/terminal-text.js";

/** Dollars as a status line shows them: cents below $10, whole cents above; "$?" when the price is unknown. */
export function formatUsd(usd: number | undefined): string {
  if (usd === undefined) return "$?";
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** The share of a call's input read from the prompt cache, as a whole percent; undefined before any call. */
export function cacheHitShare(call: CostFigures | undefined): number | undefined {
  if (!call) return undefined;
  const u = call.usage;
  const input = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
  return input === 0 ? undefined : Math.round((100 * u.cache_read_input_tokens) / input);
}

const k = (tokens: number) => (tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens));

/**
 * The status line under each run: model, how full the context window is, the last request's cache-hit share
 * and what the session has cost, e.g. `anthropic:claude-sonnet-5-5 · context 34% of 200k · cache 97% · $0.42`, then
 * how many background agents run, if any.
 */
export function sessionStatus(agent: CodingAgent): string {
  const window = agent.contextWindow();
  const cost = agent.cost();
  const parts = [`${agent.provider.api}:${agent.model}`];
  parts.push(
    window.used === undefined
      ? `context – of ${k(window.limit)}`
      : `context ${Math.round((100 * window.used) / window.limit)}% of ${k(window.limit)}`,
  );
  const share = cacheHitShare(cost.last);
  if (share !== undefined) parts.push(`cache ${share}%`);
  // "$?" read as a shell's exit status: a model without a price in the catalog or models.json says so.
  parts.push(cost.usd === undefined ? "price unknown" : formatUsd(cost.usd));
  const running = agent.backgroundAgents?.running().length ?? 0;
  if (running > 0) parts.push(`${running} background agent${running === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

/** `/cost`: the session's tokens and dollars, the last call's, and each sub-agent's. */
export function costReport(agent: CodingAgent): string {
  const cost = agent.cost();
  const n = (v: number) => v.toLocaleString("en-US");
  const line = (name: string, f: CostFigures) =>
    `${name}: ${formatUsd(f.usd)} — ${n(f.usage.input_tokens)} in, ${n(f.usage.output_tokens)} out, ${n(f.usage.cache_read_input_tokens)} cache read, ${n(f.usage.cache_creation_input_tokens)} cache write`;
  const out = [line(`session (${cost.calls} calls)`, cost)];
  if (cost.last) out.push(line("last call", cost.last));
  const names = subagentNames(agent);
  for (const [path, f] of Object.entries(cost.subagents)) {
    const id = path.split("/").at(-1) ?? path;
    out.push(line(`  sub-agent ${names.get(id) ?? path}`, f));
  }
  const p = agent.price;
  // 0.1 × 3 is 0.30000000000000004 in floating point: six significant digits are the price.
  const usd = (v: number) => String(Number(v.toPrecision(6)));
  out.push(
    p
      ? `prices (USD per million tokens): ${usd(p.input)} in, ${usd(p.output)} out, ${usd(p.cacheWrite5m)} cache write 5m, ${usd(p.cacheWrite1h)} 1h, ${usd(p.cacheRead)} cache read; set others in ~/.mitsu/models.json`
      : 'this model\'s price is unknown: set it in ~/.mitsu/models.json ("price": {"input": …, "output": …})',
  );
  return out.join("\n");
}

/** `/context`: how full the window is, then the next request's parts and their sizes. */
export function contextReport(agent: CodingAgent): string {
  const window = agent.contextWindow();
  const breakdown = agent.contextBreakdown();
  const n = (v: number) => v.toLocaleString("en-US");
  const head = `context: ~${n(breakdown.totals.tokens)} of ${n(window.limit)} tokens (${Math.round((100 * breakdown.totals.tokens) / window.limit)}%)${window.used !== undefined ? `; the last request was ${n(window.used)}` : ""}${agent.compactionThreshold !== undefined ? `; compaction at ~${n(agent.compactionThreshold)}` : ""}`;
  return `${head}\n\n${breakdown.text}`;
}

/** The Task calls of the conversation, by id, as `/cost` names their sub-agents: `Explore: find the auth code`. */
function subagentNames(agent: CodingAgent): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of agent.history ?? []) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type !== "tool_use" || block.name !== "Task") continue;
      const input = block.input as { description?: unknown; subagent_type?: unknown };
      const type = typeof input.subagent_type === "string" ? input.subagent_type : "sub-agent";
      const what = typeof input.description === "string" ? `: ${input.description}` : "";
      names.set(block.id, stripControls(`${type}${what}`).replace(/\s+/g, " ").slice(0, 80));
    }
  }
  return names;
}
