import { stripContextSuffix, toModelAlias } from "../providers/model-alias.js";
import { MODEL_ALIASES } from "../providers/model-catalog.js";
import { BUILTIN_PROVIDERS } from "../providers/model-registry.js";
import type { Provider } from "../providers/provider.js";

/** A model to run a prompt with: its provider, the id sent, and its output limit. */
export interface ModelChoice {
  provider: Provider;
  model: string;
  maxOutputTokens: number;
}

/**
 * The full `provider:model` spec a command's or skill's `model` names, or undefined for the agent's own model
 * (`inherit` or nothing): `provider:model` as it is; `haiku` / `sonnet` / `opus`, that model of the agent's
 * provider's family (as in agent files; a provider without a family keeps the agent's model); a bare id, of the
 * agent's provider (its base URL, its wire) unless its name says another family.
 */
export function modelSpecFor(
  spec: string | undefined,
  own: { provider: string; model: string },
): string | undefined {
  const wanted = spec?.trim();
  if (!wanted || wanted === "inherit") return undefined;
  const alias = toModelAlias(wanted);
  if (alias !== undefined) {
    const family = BUILTIN_PROVIDERS[own.provider]?.family;
    return family === undefined ? undefined : `${own.provider}:${MODEL_ALIASES[family][alias]}`;
  }
  if (wanted.includes(":")) return stripContextSuffix(wanted);
  const family = familyOf(wanted);
  const sameFamily = family === undefined || family === familyOf(own.model);
  return sameFamily ? `${own.provider}:${wanted}` : wanted;
}

function familyOf(model: string): string | undefined {
  if (model.startsWith("claude-")) return "anthropic";
  if (model.startsWith("gemini-")) return "gemini";
  if (/^(gpt-|o\d|chatgpt-|codex-)/.test(model)) return "openai";
  return undefined;
}
