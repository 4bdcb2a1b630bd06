import type { ObjectContext } from "@restatedev/restate-sdk";

/** How long a step's action is kept for a later attempt at most (a bound on memory, far beyond a model call). */
const KEEP_MS = 30 * 60_000;

/**
 * The journaled steps whose actions this worker process is running, by invocation and step: a later attempt of
 * the same invocation that reaches the same step here (the attempt before it was cut off while the action ran,
 * e.g. when the Restate node leading its partition died, and Restate started the invocation again on this
 * worker) waits for the running action instead of starting it again: a model call in flight is not sent again.
 * For model steps only: any one answer may be journaled, whereas a tool call may have been run again by another
 * process meanwhile (an attempt between the two), and the result kept here would not say so. Kept until the
 * step's result is journaled (its `ctx.run` resolved), a failed action not at all.
 */
export class InFlightSteps {
  /** By key: the running action, and the timer that forgets it after KEEP_MS (cleared when it is forgotten first). */
  readonly #running = new Map<string, { action: Promise<unknown>; timer: NodeJS.Timeout }>();

  /** The action's result: of the running one for `key`, or of a new one started now. */
  run<T>(key: string, action: () => Promise<T>): Promise<T> {
    const running = this.#running.get(key);
    if (running) return running.action as Promise<T>;
    const started = action();
    const forget = () => {
      if (this.#running.get(key)?.action === started) this.done(key);
    };
    this.#running.set(key, { action: started, timer: setTimeout(forget, KEEP_MS).unref() });
    started.catch(forget);
    return started;
  }

  /** The step's result is journaled: a later attempt replays it. */
  done(key: string): void {
    // The timer goes too: it would hold the action, and its result, for the rest of KEEP_MS.
    clearTimeout(this.#running.get(key)?.timer);
    this.#running.delete(key);
  }

  get size(): number {
    return this.#running.size;
  }
}

/**
 * The journaled step `name` (`ctx.run`), whose action, if it still runs in this process for an earlier attempt
 * of the invocation, is waited for instead of started again (`InFlightSteps`; without it a plain `ctx.run`).
 */
export function runStep<T>(
  ctx: ObjectContext,
  inFlight: InFlightSteps | undefined,
  name: string,
  action: () => Promise<T>,
): Promise<T> {
  if (!inFlight) return ctx.run(name, action);
  const key = `${ctx.request().id}\u0000${name}`;
  // Forgotten once journaled; not when the step fails here (an attempt cut off: the action may still run, and
  // the next attempt, if it comes to this process, waits for it).
  return ctx
    .run(name, () => inFlight.run(key, action))
    .then((value) => {
      inFlight.done(key);
      return value;
    });
}
