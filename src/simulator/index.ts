/** mitsu/simulator: a loopback provider API simulator for tests, benchmarks and demos. */

export { CACHE_LOOKBACK_BLOCKS, type CacheAccount, type CacheBlock, CacheModel } from "./cache-model.js";
export { type PrefixAccount, PrefixCache, type PrefixCacheOptions } from "./prefix-cache.js";
export { startSimulator } from "./server.js";
export type {
  LoggedRequest,
  ScriptEntry,
  SimBlock,
  SimCitation,
  SimFault,
  SimMark,
  SimProtocol,
  SimSearchResult,
  SimStopReason,
  SimTurn,
  SimUsage,
  Simulator,
  SimulatorOptions,
} from "./types.js";
