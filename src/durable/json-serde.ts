import * as restate from "@restatedev/restate-sdk";

/** The SDK's JSON serde, typed for one value (its declared type does not fit `exactOptionalPropertyTypes`). */
export function jsonSerde<T>(): restate.Serde<T> {
  return restate.serde.json as unknown as restate.Serde<T>;
}

/** A call to the handler `method` of the object `service` (key `key`), its request and answer in JSON. */
export function jsonCall<I, O>(
  ctx: restate.Context,
  service: string,
  method: string,
  key: string,
  parameter: I,
): restate.RestatePromise<O> {
  return ctx.genericCall<I, O>({
    service,
    method,
    key,
    parameter,
    inputSerde: jsonSerde(),
    outputSerde: jsonSerde(),
  });
}
