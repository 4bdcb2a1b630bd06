/**
 * A mistake in the test's script (a turn the real API could never produce, a dynamic entry that threw).
 * The simulator answers it with a 500 that says so and tells clients not to retry, and logs it.
 */
export class SimScriptError extends Error {
  override readonly name = "SimScriptError";
}
