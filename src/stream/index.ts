export { coalesceDeltas } from "./coalesce-deltas.js";
export type { JsonAccumulatorOptions } from "./json-accumulator.js";
export { JsonAccumulator } from "./json-accumulator.js";
export type { JsonPath } from "./json-path.js";
export type { JsonResult } from "./json-result.js";
export type { DecodeSseOptions, SseEvent } from "./sse-decoder.js";
export { decodeSse, decodeSseBatches } from "./sse-decoder.js";
export type { StreamEvent, StringChunk } from "./stream-event.js";
