/** How long a stream may stay silent. Both in milliseconds; 0 turns that part off. */
export interface IdleLimits {
  /** Silence after which the read is aborted (a retryable network error). */
  idleTimeoutMs: number;
  /** Silence after which, and again at each multiple of it, the watcher is told the stream is stalled. */
  stallWarningMs: number;
}

/**
 * The idle limits as options take them (each absent or undefined: the default). Provider options and
 * `models.json` provider entries carry these two fields.
 */
export interface IdleOptions {
  /** No byte for this long (ms) drops the connection as a retryable network error; 0 never. Default 90 s. */
  idleTimeoutMs?: number | undefined;
  /** A `stream-stalled` event after this long (ms) without a byte, and at each multiple; 0 never. Default 15 s. */
  stallWarningMs?: number | undefined;
}

/** The defaults: a stream silent for 90 s is dropped and retried; a notice each 15 s before that. */
export const DEFAULT_IDLE_LIMITS: Readonly<IdleLimits> = Object.freeze({
  idleTimeoutMs: 90_000,
  stallWarningMs: 15_000,
});

/** The limits in force: each option given (and not undefined), else its default. */
export function idleLimits(options: IdleOptions | undefined): IdleLimits {
  return {
    idleTimeoutMs: options?.idleTimeoutMs ?? DEFAULT_IDLE_LIMITS.idleTimeoutMs,
    stallWarningMs: options?.stallWarningMs ?? DEFAULT_IDLE_LIMITS.stallWarningMs,
  };
}

/** A notice that the stream has said nothing for `silentMs`. */
export interface StallNotice {
  stalled: true;
  silentMs: number;
}

/**
 * Watches a stream for silence while it is being read. `touch()` on every read (cheap: one clock read);
 * `wait(read)` settles with the
 * read's result, or with a `StallNotice` while the read is still pending after each `stallWarningMs` of silence
 * (the caller shows it and waits again on the same read). After `idleTimeoutMs` of silence `onTimeout` is called
 * once (the caller aborts the read with it). One timer at a time, rescheduled only when it fires: the cost per read
 * stays a clock read and one promise.
 */
export class IdleWatch {
  private last = Date.now();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private waiter: ((notice: StallNotice) => void) | undefined;
  /** The warnings already given for the current silence (reset by `touch`). */
  private warned = 0;
  private warnedFor = 0;
  private timedOut = false;
  /** A `wait` is pending: only then is silence the server's (a slow consumer reads nothing either). */
  private reading = false;

  constructor(
    private readonly limits: IdleLimits,
    private readonly onTimeout: (silentMs: number) => void,
  ) {
    this.schedule();
  }

  /** Whether the watch is on at all. */
  get active(): boolean {
    return this.limits.idleTimeoutMs > 0 || this.limits.stallWarningMs > 0;
  }

  touch(): void {
    this.last = Date.now();
  }

  /** `read`'s result, or a notice that it is taking long (see the class comment). */
  wait<T>(read: Promise<T>): Promise<T | StallNotice> {
    if (!this.active) return read;
    if (!this.reading) {
      // Silence counts from the start of a wait: the time the consumer spent between reads is not the server's.
      this.reading = true;
      this.touch();
    }
    return new Promise<T | StallNotice>((resolve, reject) => {
      this.waiter = resolve;
      read.then(
        (value) => {
          this.reading = false;
          this.waiter = undefined;
          resolve(value);
        },
        (error: unknown) => {
          this.reading = false;
          this.waiter = undefined;
          reject(error);
        },
      );
    });
  }

  /** Stops the timer (the stream ended). */
  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiter = undefined;
  }

  private schedule(): void {
    if (!this.active || this.timedOut) return;
    const silent = Date.now() - this.last;
    if (this.warnedFor !== this.last) {
      this.warnedFor = this.last;
      this.warned = 0;
    }
    const { idleTimeoutMs, stallWarningMs } = this.limits;
    let due = Number.POSITIVE_INFINITY;
    if (idleTimeoutMs > 0) due = idleTimeoutMs;
    if (stallWarningMs > 0) due = Math.min(due, stallWarningMs * (this.warned + 1));
    this.timer = setTimeout(() => this.fire(), Math.max(0, due - silent));
    // The pending read holds the process open; the watch alone must not.
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    if (!this.reading) this.touch();
    const silent = Date.now() - this.last;
    if (this.warnedFor !== this.last) {
      this.warnedFor = this.last;
      this.warned = 0;
    }
    const { idleTimeoutMs, stallWarningMs } = this.limits;
    if (idleTimeoutMs > 0 && silent >= idleTimeoutMs) {
      this.timedOut = true;
      this.onTimeout(silent);
      return;
    }
    if (stallWarningMs > 0 && silent >= stallWarningMs * (this.warned + 1)) {
      this.warned = Math.floor(silent / stallWarningMs);
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.({ stalled: true, silentMs: silent });
    }
    this.schedule();
  }
}

export function isStallNotice(value: unknown): value is StallNotice {
  return typeof value === "object" && value !== null && (value as { stalled?: unknown }).stalled === true;
}
