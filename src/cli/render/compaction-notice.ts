import type { Usage } from "../../messages/index.js";

/** What a compaction did, as the line the terminal shows (after `/compact` and after an automatic one). */
export function compactionNotice(info: {
  before: number;
  after: number;
  tokensBefore?: number | undefined;
  tokensAfter?: number | undefined;
  usage?: Usage | undefined;
  automatic?: boolean;
  /** "trimmed": the history was made smaller without a summary (the warning that follows says why). */
  reason?: string | undefined;
}): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const parts = [`${info.before} messages → ${info.after}`];
  if (info.tokensBefore !== undefined && info.tokensAfter !== undefined) {
    // Two measures (the last request's count, an estimate of the next): an arrow to a larger number read as growth.
    parts.push(
      info.tokensAfter < info.tokensBefore
        ? `~${n(info.tokensBefore)} → ~${n(info.tokensAfter)} tokens`
        : `context ~${n(info.tokensBefore)} tokens before; the next request ~${n(info.tokensAfter)} with the summary, system prompt and tools`,
    );
  }
  const u = info.usage;
  if (u) {
    const sent = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    const share = sent > 0 ? Math.round((100 * u.cache_read_input_tokens) / sent) : 0;
    parts.push(`summary ${n(u.output_tokens)} tokens, ${share}% of its input read from the cache`);
  }
  const what = info.reason === "trimmed" ? "context trimmed (no summary)" : "context compacted automatically";
  return `${info.automatic || info.reason === "trimmed" ? what : "compacted"}: ${parts.join("; ")}`;
}
