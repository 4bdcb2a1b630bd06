/** Resolves after `ms` milliseconds; resolves at once (without a timer) for 0 or less. */
export function sleep(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
