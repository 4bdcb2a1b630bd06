/**
 * `@restatedev/restate-sdk` 1.17 calls `Promise.withResolvers` (Node 22) while it handles invocations; mitsu
 * runs on Node 20, which lacks it. This adds the standard method when it is missing, and nothing else: a
 * runtime that has it keeps its own. Called by `createDurableAgent` and `serveWorker`, before any invocation.
 */
export function ensurePromiseWithResolvers(): void {
  const promise = Promise as PromiseConstructor & { withResolvers?: unknown };
  if (typeof promise.withResolvers === "function") return;
  Object.defineProperty(Promise, "withResolvers", {
    configurable: true,
    writable: true,
    value: function withResolvers<T>(this: PromiseConstructor) {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const created = new this<T>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      return { promise: created, resolve, reject };
    },
  });
}
