/**
 * Child signals of one parent signal, through a single listener on the parent: each concurrent tool call of a
 * turn gets its own signal, and whatever the call's tool adds to it (a child process's kill, a fetch, a question)
 * is added there — not to the turn's shared signal, where twenty parallel calls would be twenty listeners (and a
 * MaxListenersExceededWarning, though nothing leaked). Aborting the parent aborts every live child with its reason.
 */
export class SignalFanOut {
  readonly #children = new Set<AbortController>();
  readonly #onAbort = () => {
    for (const child of this.#children) child.abort(this.parent.reason);
    this.#children.clear();
  };

  constructor(private readonly parent: AbortSignal) {
    parent.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** A signal that aborts with the parent; `release` forgets it (call when the call ends). */
  child(): { signal: AbortSignal; release: () => void } {
    const controller = new AbortController();
    if (this.parent.aborted) controller.abort(this.parent.reason);
    else this.#children.add(controller);
    return { signal: controller.signal, release: () => this.#children.delete(controller) };
  }

  /** Removes the listener from the parent (the turn is over). */
  dispose(): void {
    this.parent.removeEventListener("abort", this.#onAbort);
    this.#children.clear();
  }
}
