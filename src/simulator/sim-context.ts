import type { IncomingMessage, ServerResponse } from "node:http";
import type { CacheModel } from "./cache-model.js";
import type { ThoughtSignatures } from "./gemini/thought-signatures.js";
import type { IdSource } from "./id-source.js";
import type { PrefixCache } from "./prefix-cache.js";
import type { ScriptQueue } from "./script-queue.js";
import type { LoggedRequest, SimMark, SimulatorOptions } from "./types.js";

/** Options with their defaults applied. */
export interface ResolvedOptions {
  textChunk: number;
  inputChunk: number;
  delayMs: number;
  charsPerToken: number;
  minCacheableTokens: number;
  now: () => number;
  onMark: (mark: SimMark) => void;
  reportUsage: NonNullable<SimulatorOptions["reportUsage"]>;
  contextWindow: SimulatorOptions["contextWindow"];
}

/** What every protocol handler shares: one script, one cache, one log per simulator. */
export interface SimContext {
  readonly options: ResolvedOptions;
  readonly queue: ScriptQueue;
  readonly cache: CacheModel;
  /** Automatic prefix caching of the OpenAI and Gemini protocols. */
  readonly prefixCache: PrefixCache;
  readonly ids: IdSource;
  /** The Gemini thought signatures handed out, which requests must send back within the current turn. */
  readonly thoughtSignatures: ThoughtSignatures;
  readonly requests: LoggedRequest[];
}

/** One HTTP exchange, already read and logged; the handler fills in `log.status`, `log.error`, `log.usage`. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly log: LoggedRequest;
  /** Index of `log` in `SimContext.requests`. */
  readonly index: number;
  /** Why the body is not JSON, when it is not (log.body then holds the raw text). */
  readonly bodyError: string | undefined;
}
