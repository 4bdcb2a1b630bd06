/** A hook's call with its timeout and the run's signal: what stopped it, if anything, for the notice. */
export interface HookDeadline {
  /** Aborted at the timeout or when the run's signal aborts. */
  readonly signal: AbortSignal;
  /** "timed out after N s" or "was interrupted" once aborted; undefined before. */
  why(): string | undefined;
  /** Clears the timer and the listener: call it when the call is over. */
  release(): void;
}

/** The deadline of one hook call (an http or prompt hook): `timeoutMs`, or the run's `signal`, whichever is first. */
export function hookDeadline(timeoutMs: number, signal: AbortSignal | undefined): HookDeadline {
  const controller = new AbortController();
  let why: string | undefined;
  const timer = setTimeout(() => {
    why = `timed out after ${Math.round(timeoutMs / 100) / 10} s`;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => {
    why ??= "was interrupted";
    controller.abort();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    why: () => why,
    release() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
