import { addUsage, emptyUsage, type Usage } from "../messages/index.js";
import type { ModelPrice } from "../providers/model-prices.js";
import { usageCost } from "../providers/model-prices.js";
import type { CostFigures, SessionCost } from "./coding-agent.js";

/** What the conversation cost: a resumed file's calls, then each call as it answers; see `CodingAgent.cost`. */
export class CostMeter {
  private spent: { usage: Usage; calls: number };
  private readonly bySubagent = new Map<string, Usage>();
  /** The top-level agent's last model call. */
  last: Usage | undefined;

  constructor(
    private readonly price: ModelPrice | undefined,
    private readonly cacheTtl: "5m" | "1h",
    resumed?: { usage: Usage; calls: number },
  ) {
    this.spent = resumed ?? { usage: emptyUsage(), calls: 0 };
  }

  count(usage: Usage, agentPath: readonly string[] = []): void {
    this.spent = { usage: addUsage(this.spent.usage, usage), calls: this.spent.calls + 1 };
    if (agentPath.length === 0) return;
    const key = agentPath.join("/");
    this.bySubagent.set(key, addUsage(this.bySubagent.get(key) ?? emptyUsage(), usage));
  }

  figures(usage: Usage): CostFigures {
    return { usage, usd: this.price ? usageCost(usage, this.price, this.cacheTtl) : undefined };
  }

  cost(): SessionCost {
    const subagents: SessionCost["subagents"] = {};
    for (const [key, usage] of this.bySubagent) subagents[key] = this.figures(usage);
    return {
      ...this.figures(this.spent.usage),
      ...(this.last ? { last: this.figures(this.last) } : {}),
      subagents,
      calls: this.spent.calls,
    };
  }
}
