import type { CodingAgent } from "../../harness/index.js";
import { addUsage, emptyUsage, type Usage } from "../../messages/index.js";
import { catalogLimits, MODEL_CATALOG } from "../../providers/model-catalog.js";
import { catalogPrice, MODEL_PRICES, type ModelPrice, usageCost } from "../../providers/model-prices.js";

/** Claude Code's `result.modelUsage` entry for one model. */
export interface ModelUsageEntry {
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  webSearchRequests: number;
  /** US dollars; 0 when the model's price is unknown (then `costKnown` in `ModelUsageBook.total` is false). */
  costUSD: number;
  contextWindow: number;
  maxOutputTokens: number;
}

/** What the book needs to know of a model beyond its usage. */
export interface ModelFacts {
  price?: ModelPrice | undefined;
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * The facts of `model`: the agent's own for its model; for another (a sub-agent's, one chosen for a prompt) the
 * catalog's, with `chosenMaxOutput` where the choice says it; 0 for what the catalog does not list.
 */
export function modelFacts(
  agent: CodingAgent | undefined,
  model: string,
  chosenMaxOutput?: number,
): ModelFacts {
  if (agent && model === agent.model)
    return {
      price: agent.price,
      contextWindow: agent.contextWindow().limit,
      maxOutputTokens: agent.maxOutputTokens,
    };
  const limits = anyCatalogLimits(model);
  return {
    price: anyCatalogPrice(model),
    contextWindow: limits?.contextWindow ?? 0,
    maxOutputTokens: chosenMaxOutput ?? limits?.maxOutputTokens ?? 0,
  };
}

/**
 * The tokens of one prompt per model, sub-agents' calls included (each under the model that answered it), and
 * their cost: Claude Code's `modelUsage` and `total_cost_usd`.
 */
export class ModelUsageBook {
  private readonly byModel = new Map<string, Usage>();

  constructor(
    /** The facts of a model id: the agent's own for its model, the catalog's price for others. */
    private readonly facts: (model: string) => ModelFacts,
    private readonly ttl: "5m" | "1h" = "5m",
  ) {}

  add(model: string, usage: Usage): void {
    this.byModel.set(model, addUsage(this.byModel.get(model) ?? emptyUsage(), usage));
  }

  /** The total cost in US dollars, or null when a model that was used has no known price. */
  cost(): number | null {
    let total = 0;
    for (const [model, usage] of this.byModel) {
      const price = this.facts(model).price;
      if (!price) return null;
      total += usageCost(usage, price, this.ttl);
    }
    return total;
  }

  modelUsage(): Record<string, ModelUsageEntry> {
    const out: Record<string, ModelUsageEntry> = {};
    for (const [model, usage] of this.byModel) {
      const facts = this.facts(model);
      out[model] = {
        inputTokens: usage.input_tokens,
        outputTokens: usage.output_tokens,
        cacheReadInputTokens: usage.cache_read_input_tokens,
        cacheCreationInputTokens: usage.cache_creation_input_tokens,
        webSearchRequests: 0,
        costUSD: facts.price ? usageCost(usage, facts.price, this.ttl) : 0,
        contextWindow: facts.contextWindow,
        maxOutputTokens: facts.maxOutputTokens,
      };
    }
    return out;
  }
}

/** The catalog's limits of a model id, whichever family it belongs to. */
export function anyCatalogLimits(
  model: string,
): { contextWindow: number; maxOutputTokens: number } | undefined {
  for (const family of Object.keys(MODEL_CATALOG) as Array<keyof typeof MODEL_CATALOG>) {
    const limits = catalogLimits(family, model);
    if (limits) return limits;
  }
  return undefined;
}

/** The catalog's price of a model id, whichever family it belongs to. */
export function anyCatalogPrice(model: string): ModelPrice | undefined {
  for (const family of Object.keys(MODEL_PRICES) as Array<keyof typeof MODEL_PRICES>) {
    const price = catalogPrice(family, model);
    if (price) return price;
  }
  return undefined;
}
