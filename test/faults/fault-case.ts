import fc from "fast-check";
import type { SimFault } from "../../src/simulator/index.js";

/** What a scripted tool call does when run. */
export type ToolKind = "echo" | "boom" | "slow" | "hang";

/** One scripted tool call of a turn. */
export interface CaseCall {
  kind: ToolKind;
  /** Reuse the id of the call before it in the same turn (a duplicate id on the wire). */
  duplicateId: boolean;
  /** Stream invalid JSON as the input (Anthropic eager tools only; elsewhere the call is sent as valid JSON). */
  invalidJson: boolean;
}

export interface CaseTurn {
  text: string;
  calls: CaseCall[];
  fault: SimFault | undefined;
}

/** One generated run: a script over one adapter, its faults, an abort moment and a session-file cut. */
export interface FaultCase {
  /** Index into ADAPTERS. */
  adapter: number;
  turns: CaseTurn[];
  /** Milliseconds after the start at which the run is aborted; undefined: never. */
  abortAtMs: number | undefined;
  /** Where the session file is cut (a fraction of its bytes after the header line): the process killed there. */
  cutAt: number;
}

const fault: fc.Arbitrary<SimFault | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant("http" as const),
      status: fc.constantFrom(429, 529, 500, 503),
      retryAfterMs: fc.constantFrom(0, 1),
      times: fc.integer({ min: 1, max: 3 }),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("error-event" as const),
      afterEvents: fc.integer({ min: 0, max: 30 }),
      errorType: fc.constantFrom("overloaded_error", "api_error", "rate_limit_error"),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("disconnect" as const),
      afterBytes: fc.integer({ min: 0, max: 3000 }),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("max-tokens" as const),
      afterChars: fc.integer({ min: 0, max: 120 }),
    }),
    weight: 2,
  },
);

const call: fc.Arbitrary<CaseCall> = fc.record({
  kind: fc.constantFrom<ToolKind>("echo", "echo", "boom", "slow", "hang"),
  duplicateId: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  invalidJson: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
});

const turn: fc.Arbitrary<CaseTurn> = fc.record({
  text: fc.string({ minLength: 0, maxLength: 60 }),
  calls: fc.array(call, { minLength: 0, maxLength: 3 }),
  fault,
});

export function faultCase(adapters: number): fc.Arbitrary<FaultCase> {
  return fc.record({
    adapter: fc.integer({ min: 0, max: adapters - 1 }),
    turns: fc.array(turn, { minLength: 1, maxLength: 3 }),
    abortAtMs: fc.option(fc.integer({ min: 0, max: 40 }), { freq: 3 }).map((v) => v ?? undefined),
    cutAt: fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000),
  });
}
