import { abortedError } from "./provider-error.js";

/**
 * Waits `ms` milliseconds. Honours the signal: rejects with a `ProviderError` of type `aborted` as soon as it
 * aborts (or at once if it already has), and clears its timer so nothing keeps the process alive.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
