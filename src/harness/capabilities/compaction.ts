import { type CompactionSettings, type Compactor, createCompactor } from "../../compaction/index.js";
import type { Context } from "../../context/index.js";
import type { HookRunner } from "../../hooks/index.js";
import type { ReplaceHistory } from "../../loop/history-replacement.js";
import type { CodingAgentOptions } from "../coding-agent.js";
import type { ModelSetup } from "../model-setup.js";

export interface CompactionStep {
  compactor: Compactor;
  /** The loop's history-replacement step: the embedder's, the automatic compaction, or (auto off) the overflow trim. */
  replaceHistory: ReplaceHistory | undefined;
  /** Whether `replaceHistory` is the automatic compaction (its threshold is then the agent's). */
  automatic: boolean;
}

/**
 * Compaction: automatic when the next request would pass a threshold of the model's context window (PreCompact
 * hooks hear of it before its summary is asked for; they cannot stop it), and on demand (`compact()`).
 */
export function compactionStep(
  options: CodingAgentOptions,
  models: ModelSetup,
  deps: { maxTokens: number; context: () => Context; hooks: HookRunner; warn: (message: string) => void },
): CompactionStep {
  const { resolved } = models;
  const settings: CompactionSettings =
    options.compaction === false ? { auto: false } : (options.compaction ?? {});
  const compactor = createCompactor({
    ...settings,
    provider: resolved.provider,
    model: resolved.model,
    contextWindow: resolved.entry.contextWindow,
    maxTokens: deps.maxTokens,
    base: () => ({ system: deps.context().system, tools: deps.context().tools }),
    ...(options.cacheTtl ? { cacheTtl: options.cacheTtl } : {}),
    onError: (error) => deps.warn(`automatic compaction failed; continuing without it: ${error.message}`),
  });
  const autoCompact: ReplaceHistory = async (messages, info) => {
    if (info.overflow === undefined && compactor.tokens(messages) < compactor.threshold) return undefined;
    await deps.hooks.run("PreCompact", { trigger: "auto", custom_instructions: "" }, { signal: info.signal });
    return compactor.replaceHistory(messages, info);
  };
  // With automatic compaction off, a history that would not fit at all is still trimmed (never sent over).
  const replaceHistory =
    options.replaceHistory ?? (settings.auto === false ? compactor.replaceHistory : autoCompact);
  return { compactor, replaceHistory, automatic: replaceHistory === autoCompact };
}
