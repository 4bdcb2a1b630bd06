import { isModelAlias, MODEL_ALIASES, type ModelAlias } from "./model-catalog.js";

/**
 * Claude Code's model aliases as a `ModelAlias`: `haiku`, `sonnet`, `opus`, and the forms its settings and agent
 * files also use — `opusplan` (Opus to plan, Sonnet to act: here Opus), `best` (the largest), and a `[1m]`
 * suffix (`sonnet[1m]`, its 1M-token context option, which is a request header there, never part of the id).
 * Undefined for anything else.
 */
export function toModelAlias(text: string): ModelAlias | undefined {
  const bare = stripContextSuffix(text.trim()).toLowerCase();
  if (isModelAlias(bare)) return bare;
  if (bare === "opusplan" || bare === "best") return "opus";
  return undefined;
}

/** `claude-sonnet-4-5[1m]` → `claude-sonnet-4-5`: Claude Code's 1M-context marker is never sent as a model id. */
export function stripContextSuffix(model: string): string {
  return model.replace(/\[1m\]$/i, "");
}

/**
 * A model spec with Claude Code's aliases spelled out: a bare alias (`opus`, `sonnet[1m]`, `opusplan`) is the
 * Anthropic model of that name; `provider:alias` is that provider family's model (when it has one); a `[1m]`
 * suffix is dropped. Anything else comes back as it was.
 */
export function expandModelAlias(spec: string, families: Record<string, string | undefined> = {}): string {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(":");
  const prefix = colon > 0 ? trimmed.slice(0, colon) : undefined;
  const model = colon > 0 ? trimmed.slice(colon + 1) : trimmed;
  const alias = toModelAlias(model);
  if (alias === undefined) {
    const stripped = stripContextSuffix(model);
    return prefix === undefined ? stripped : `${prefix}:${stripped}`;
  }
  if (prefix === undefined) return `anthropic:${MODEL_ALIASES.anthropic[alias]}`;
  const family = (families[prefix] ?? (prefix in MODEL_ALIASES ? prefix : undefined)) as
    | keyof typeof MODEL_ALIASES
    | undefined;
  return family === undefined ? trimmed : `${prefix}:${MODEL_ALIASES[family][alias]}`;
}
