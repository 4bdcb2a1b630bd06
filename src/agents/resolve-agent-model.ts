import { toModelAlias } from "../providers/model-alias.js";
import { MODEL_ALIASES } from "../providers/model-catalog.js";
import { BUILTIN_PROVIDERS } from "../providers/model-registry.js";
import type { Provider } from "../providers/provider.js";

/** A model ready to call: its provider, the id sent, and its output limit. */
export interface ResolvedAgentModel {
  provider: Provider;
  model: string;
  maxOutputTokens: number;
  /** The model's context window, for `RunAgentOptions.contextWindow` (compaction); absent when unknown. */
  contextWindow?: number;
}

/**
 * The model an agent's `model` field names: absent or `inherit`, the parent's; `haiku` / `sonnet` / `opus`,
 * that model of the parent provider's family (a provider without a family in the catalog — a models.json
 * server — keeps the parent's model); anything else, a spec for `resolve` (the model registry). Throws with a
 * readable message when the spec cannot be resolved (unknown provider, no key).
 */
export function resolveAgentModel(
  spec: string | undefined,
  parent: ResolvedAgentModel & { providerName: string },
  resolve: ((spec: string) => ResolvedAgentModel) | undefined,
): ResolvedAgentModel {
  const text = spec?.trim();
  if (text === undefined || text === "" || text === "inherit") return parent;
  let target = text;
  const alias = toModelAlias(text);
  if (alias !== undefined) {
    const family = BUILTIN_PROVIDERS[parent.providerName]?.family;
    if (family === undefined) return parent;
    const id = MODEL_ALIASES[family][alias];
    if (id === parent.model) return parent;
    target = `${parent.providerName}:${id}`;
  }
  if (!resolve) {
    throw new Error(`This agent asks for the model ${text}, but only the parent's model is available here.`);
  }
  return resolve(target);
}
