import { MODEL_CATALOG } from "../../providers/model-catalog.js";
import { BUILTIN_PROVIDERS } from "../../providers/model-registry.js";
import { loadModelsConfig } from "../../providers/models-config.js";

/**
 * The models `/model` offers: each built-in provider whose key (or base URL) is set, with its catalog's models,
 * and every model of `~/.mitsu/models.json`, as `provider:model`. The current one first.
 */
export function modelChoices(env: NodeJS.ProcessEnv, home: string, current: string): string[] {
  const specs: string[] = [];
  for (const [name, provider] of Object.entries(BUILTIN_PROVIDERS)) {
    const configured =
      provider.keyEnv.some((key) => (env[key] ?? "") !== "") ||
      (env[provider.baseURLEnv] ?? "") !== "" ||
      (name === "anthropic" && (env.ANTHROPIC_AUTH_TOKEN ?? "") !== "");
    if (!configured) continue;
    for (const id of Object.keys(MODEL_CATALOG[provider.family])) specs.push(`${name}:${id}`);
  }
  try {
    for (const [name, provider] of Object.entries(loadModelsConfig(home).providers)) {
      for (const model of provider.models ?? []) specs.push(`${name}:${model.id}`);
    }
  } catch {
    // A broken models.json is reported where a model is resolved; the catalog's models are still offered.
  }
  const unique = [...new Set(specs)].filter((spec) => spec !== current);
  return [current, ...unique];
}
