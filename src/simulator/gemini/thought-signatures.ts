type Json = Record<string, unknown>;

/**
 * The thought signatures the simulator has handed out on functionCall parts, and Gemini's rule for them: when
 * a model step with function calls was signed (the turn had thinking), the client must send that signature
 * back on the step's first functionCall part for as long as the step is in the current turn (everything
 * after the last user content that is not only functionResponse parts). Older turns are not checked, as
 * the real API does not check them. Steps the simulator never signed need none.
 */
export class ThoughtSignatures {
  /** Signed steps, keyed by their first call (name and args as sent). */
  private readonly signed = new Set<string>();

  /** Records that a step whose first functionCall is `call` was sent with a signature. */
  issue(call: { name: string; args: unknown }): void {
    this.signed.add(callKey(call.name, call.args));
  }

  /** Gemini's 400 message for the first signed step of the current turn sent back without its signature. */
  missing(contents: readonly unknown[]): string | undefined {
    for (let i = currentTurnStart(contents); i < contents.length; i++) {
      const content = contents[i];
      if (!isObject(content) || content.role !== "model" || !Array.isArray(content.parts)) continue;
      const first = content.parts.find((part) => isObject(part) && isObject(part.functionCall));
      if (!isObject(first) || first.thoughtSignature !== undefined) continue;
      const call = first.functionCall as Json;
      const name = typeof call.name === "string" ? call.name : "";
      if (!this.signed.has(callKey(name, call.args ?? {}))) continue;
      return (
        "Function call is missing a thought_signature in functionCall parts. This is required for tools to work " +
        "correctly, and missing thought_signature may lead to degraded model performance. Additional data, " +
        `function call \`default_api:${name}\` , position ${i + 1}. Please refer to ` +
        "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
      );
    }
    return undefined;
  }
}

/** The index just after the last user content that holds anything besides functionResponse parts. */
function currentTurnStart(contents: readonly unknown[]): number {
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = contents[i];
    if (!isObject(content) || (content.role ?? "user") !== "user" || !Array.isArray(content.parts)) continue;
    if (content.parts.some((part) => !isObject(part) || !isObject(part.functionResponse))) return i + 1;
  }
  return 0;
}

function callKey(name: string, args: unknown): string {
  return `${name}\u0000${JSON.stringify(args)}`;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
