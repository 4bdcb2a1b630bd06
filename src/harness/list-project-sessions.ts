import { catalogPrice, type ModelPrice, usageCost } from "../providers/model-prices.js";
import { loadModelsConfig } from "../providers/models-config.js";
import { listSessions, type SessionSummary } from "../session/index.js";
import { legacySessionsDir, sessionsDir } from "./sessions-dir.js";

/** A session of the project with what it cost (undefined when its model's price is unknown). */
export interface ProjectSession extends SessionSummary {
  usd: number | undefined;
}

const FAMILY: Record<string, "anthropic" | "openai" | "gemini"> = {
  anthropic: "anthropic",
  "openai-chat": "openai",
  "openai-responses": "openai",
  gemini: "gemini",
};

/** The price of a header's `api:model`: models.json's listing of that id over the catalog's. */
function priceOf(spec: string, home: string): ModelPrice | undefined {
  const colon = spec.indexOf(":");
  const api = spec.slice(0, colon);
  const model = spec.slice(colon + 1);
  const family = FAMILY[api];
  const base = family ? catalogPrice(family, model) : undefined;
  let listed: Partial<ModelPrice> | undefined;
  try {
    for (const provider of Object.values(loadModelsConfig(home).providers)) {
      listed ??= provider.models?.find((m) => m.id === model)?.price;
    }
  } catch {
    // A broken models.json is reported where a model is resolved; the list shows catalog prices.
  }
  if (!listed) return base;
  return { input: 0, output: 0, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0, ...base, ...listed };
}

/**
 * This workspace's sessions (`mitsu -r`, `/resume`), newest first: first prompt, times, turns, usage and cost.
 * Sessions under the project's old folder name are listed too. Unreadable files go to `onSkip`.
 */
export function listProjectSessions(
  where: { cwd: string; home: string },
  onSkip?: (path: string, why: string) => void,
): ProjectSession[] {
  const sessions = listSessions([sessionsDir(where), legacySessionsDir(where)], where.cwd, onSkip);
  return sessions.map((s) => {
    const price = priceOf(s.model, where.home);
    return { ...s, usd: price ? usageCost(s.usage, price) : undefined };
  });
}
