import type { CodingAgent, CostFigures } from "../harness/index.js";

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
  parts.push(formatUsd(cost.usd));
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
  for (const [path, f] of Object.entries(cost.subagents)) out.push(line(`  sub-agent ${path}`, f));
  const p = agent.price;
  out.push(
    p
      ? `prices (USD per million tokens): ${p.input} in, ${p.output} out, ${p.cacheWrite5m} cache write 5m, ${p.cacheWrite1h} 1h, ${p.cacheRead} cache read; set others in ~/.mitsu/models.json`
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
