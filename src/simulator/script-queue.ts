import { SimScriptError } from "./script-error.js";
import type { LoggedRequest, ScriptEntry, SimFault, SimTurn } from "./types.js";

type HttpFault = Extract<SimFault, { kind: "http" }>;

/** What the head of the script says about one request. */
export type ScriptStep =
  | { kind: "exhausted"; served: number }
  | { kind: "http-fault"; fault: HttpFault }
  | { kind: "turn"; turn: SimTurn; number: number };

/**
 * The script: entries served in order, one per successful request. A turn with an http fault answers the
 * next `times` requests with the error before it is served. A function entry is called for every request
 * that reaches it (so it sees the retried request too).
 */
export class ScriptQueue {
  private readonly entries: { entry: ScriptEntry; faultsServed: number }[] = [];
  private served = 0;

  constructor(entries: readonly ScriptEntry[] = []) {
    this.enqueue(...entries);
  }

  enqueue(...entries: ScriptEntry[]): void {
    for (const entry of entries) this.entries.push({ entry, faultsServed: 0 });
  }

  /** Looks at the head for this request; counts an http fault as used, but does not consume the turn. */
  next(request: LoggedRequest): ScriptStep {
    const head = this.entries[0];
    if (!head) return { kind: "exhausted", served: this.served };
    const turn = resolveEntry(head.entry, request, this.served + 1);
    const fault = turn.fault;
    if (fault?.kind === "http" && head.faultsServed < (fault.times ?? 1)) {
      head.faultsServed++;
      return { kind: "http-fault", fault };
    }
    return { kind: "turn", turn, number: this.served + 1 };
  }

  /** Removes the head after its turn was served (completely or with a stream fault). */
  consume(): void {
    this.entries.shift();
    this.served++;
  }
}

function resolveEntry(entry: ScriptEntry, request: LoggedRequest, number: number): SimTurn {
  if (typeof entry !== "function") return entry;
  let turn: SimTurn;
  try {
    turn = entry(request);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SimScriptError(`script entry ${number} (a function) threw: ${message}`);
  }
  if (!turn || !Array.isArray(turn.content)) {
    throw new SimScriptError(
      `script entry ${number} (a function) did not return a turn with a content array`,
    );
  }
  return turn;
}
