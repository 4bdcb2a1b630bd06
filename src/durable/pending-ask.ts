/** A permission question a session waits on; stored in the session's state while it waits. */
export interface PendingAsk {
  /** The session that asks: the one asked about, or one of its sub-agents (`<session>.<tool_use id>`). */
  session: string;
  /** The tool call asked about. */
  toolUseId: string;
  toolName: string;
  input: Record<string, unknown>;
  /** The call in rule-like form, e.g. `Bash(rm -rf build)`. */
  display: string;
  /** Why a person is asked (no rule allows it, or an ask rule names it). */
  reason: string;
  /** Milliseconds since the epoch; after it the call is denied. */
  deadline: number;
  /** The Restate awakeable the session waits on; `approve` and `deny` complete it. */
  awakeableId: string;
}

/** A person's answer to a `PendingAsk`. */
export interface AskAnswer {
  approve: boolean;
  /** With a denial: the tool_result's text for the model (default: who denied it). */
  message?: string;
}
