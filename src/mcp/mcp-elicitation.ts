/**
 * A server asking the user for input in the middle of a call (MCP elicitation, form mode): its message and the
 * JSON schema of the fields it wants (flat: strings, numbers, booleans, enums, each maybe with a `default`).
 */
export interface McpElicitationRequest {
  server: string;
  message: string;
  schema: Record<string, unknown>;
  signal?: AbortSignal;
  /** Asked again: why the last answer was refused ("People must be at most 12"), to show the user. */
  error?: string;
}

/** The user's answer: `accept` with the fields, `decline` (no), or `cancel` (dismissed). */
export interface McpElicitationAnswer {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * Who answers a server's elicitation: a dialog at the terminal, the SDK's or ACP's question seam elsewhere. Absent
 * (print mode), every elicitation is declined, so the server learns at once that nobody will answer.
 */
export type McpElicit = (request: McpElicitationRequest) => Promise<McpElicitationAnswer>;

/** The request's message for a front-end without a place of its own for `error`: the reason appended to it. */
export function elicitationMessage(request: McpElicitationRequest): string {
  return request.error ? `${request.message}\n\n(Refused: ${request.error})` : request.message;
}
