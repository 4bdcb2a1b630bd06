import type { Usage } from "../../messages/index.js";
import type { Style } from "../render/style.js";

/** `1.2k`, `35k`, `980`: token counts at a glance. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${Math.round(n / 1000)}k`;
}

/** `4.2s`, `1m 05s`. */
export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
}

/**
 * The dim line after each turn at the prompt: how long it took and what it moved —
 * `· 4.2s · 12k in (10k cached) · 350 out` — and the cost when it is known (`costUsd`).
 */
export function turnFooter(usage: Usage, elapsedMs: number, style: Style, costUsd?: number): string {
  const cached = usage.cache_read_input_tokens;
  const input = usage.input_tokens + cached + usage.cache_creation_input_tokens;
  const parts = [
    formatElapsed(elapsedMs),
    `${compactCount(input)} in${cached > 0 ? ` (${compactCount(cached)} cached)` : ""}`,
    `${compactCount(usage.output_tokens)} out`,
    ...(costUsd !== undefined ? [`$${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`] : []),
  ];
  return style.dim(`· ${parts.join(" · ")}`);
}
