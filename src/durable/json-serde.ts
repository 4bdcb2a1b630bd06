import * as restate from "@restatedev/restate-sdk";

/** The SDK's JSON serde, typed for one value (its declared type does not fit `exactOptionalPropertyTypes`). */
export function jsonSerde<T>(): restate.Serde<T> {
  return restate.serde.json as unknown as restate.Serde<T>;
}
