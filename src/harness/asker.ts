import type { UnapprovedHooksFile } from "../hooks/index.js";
import type {
  McpApprovalAnswer,
  McpElicitationAnswer,
  McpElicitationRequest,
  McpServerEntry,
} from "../mcp/index.js";
import type { PermissionAnswer, PermissionRequest, PermissionVerdict } from "../permissions/index.js";
import type { TrustQuestion } from "./workspace-trust.js";

/**
 * A question the harness asks whoever drives it: a terminal dialog, an Agent SDK `can_use_tool` control
 * request, an ACP `session/request_permission`, a Restate awakeable.
 */
export type Question =
  /** A tool call no rule decides. */
  | { kind: "permission"; request: PermissionRequest }
  /** At start-up: may this folder's own files grant what they list? */
  | { kind: "trust"; question: TrustQuestion }
  /** At start-up: may this project `.mcp.json` server start? */
  | { kind: "mcp-server"; entry: McpServerEntry }
  /** At start-up: may the hooks of this (changed) project settings file run? */
  | { kind: "hooks"; file: UnapprovedHooksFile }
  /**
   * In plan mode, the model presents its plan (`ExitPlanMode`): approve it (and the mode to go on in) or send
   * feedback to refine it. Asked only of an Asker whose `kinds` name it; otherwise it is asked as a `permission`
   * question for the tool `ExitPlanMode` with input `{ plan }` (as Claude Code's `can_use_tool` does).
   */
  | { kind: "plan"; plan: string; signal?: AbortSignal }
  /**
   * Mid-call, an MCP server asks the user to fill a form (elicitation). The answer is checked against the
   * server's schema before it is sent: content that does not fit is refused and the question asked again.
   */
  | { kind: "elicitation"; request: McpElicitationRequest };

/** The answer to a plan: approved, going on in `mode`; or not yet, with the user's feedback (may be empty). */
export type PlanAnswer = { approve: "default" | "acceptEdits" } | { refine: string };

/** The answer to each kind of question. */
export interface Answers {
  /** One of the four answers, or a program's detailed verdict (the Agent SDK's `canUseTool` result). */
  permission: PermissionAnswer | PermissionVerdict;
  trust: boolean;
  "mcp-server": McpApprovalAnswer;
  hooks: boolean;
  plan: PlanAnswer;
  elicitation: McpElicitationAnswer;
}

/** The refusal of each kind: what an unanswerable, failed or withdrawn question counts as. */
export const REFUSALS: Readonly<Answers> = {
  permission: "deny",
  trust: false,
  "mcp-server": "skip",
  hooks: false,
  plan: { refine: "" },
  elicitation: { action: "decline" },
};

/**
 * The one seam for the harness's questions. The semantics are the harness's, whoever answers: a question nobody
 * can answer, an answer that throws and a question withdrawn (its signal aborted) are refusals (deny wins); an
 * "always" (`allow_always`, a yes to trust, `approve`, a yes to hooks) is remembered by the harness, the same way
 * whichever front-end gave it (a permission's rules for the session and, through this seam, in the project's
 * `.mitsu/settings.local.json`, as Claude Code keeps them; `~/.mitsu/trusted-folders.json`; the MCP approvals;
 * `~/.mitsu/approved-hooks.json`). A front-end answers only the kinds it can; `undefined` means "cannot".
 */
export interface Asker {
  /** The kinds this front-end answers (default all); the others go to the older options, or are not asked. */
  readonly kinds?: readonly Question["kind"][];
  /** The answer; one not of the question's kind (or `undefined`) is the kind's refusal. */
  ask(question: Question): Answer | undefined | Promise<Answer | undefined>;
  /** What the harness did with an answer, for the person who gave it ("saved Bash(npm test:*) to …"). */
  notify?(message: string): void;
}

/** Any answer; see `Answers` for which answers which kind. */
export type Answer = Answers[keyof Answers];

/** The older, one-function-per-question options (`ask`, `askTrust`, `mcp.approve`, `approveHooks`). */
export interface AskCallbacks {
  ask?: ((request: PermissionRequest) => Promise<PermissionAnswer | PermissionVerdict>) | undefined;
  askTrust?: ((question: TrustQuestion) => Promise<boolean>) | undefined;
  approveMcp?: ((entry: McpServerEntry) => Promise<McpApprovalAnswer>) | undefined;
  approveHooks?: ((file: UnapprovedHooksFile) => Promise<boolean>) | undefined;
}

/** An Asker over the one-function options: a question without its function is one nobody can answer. */
export function askerFromCallbacks(callbacks: AskCallbacks): Asker {
  return {
    ask(question) {
      switch (question.kind) {
        case "permission":
          return callbacks.ask?.(question.request);
        case "trust":
          return callbacks.askTrust?.(question.question);
        case "mcp-server":
          return callbacks.approveMcp?.(question.entry);
        case "hooks":
          return callbacks.approveHooks?.(question.file);
        case "plan":
        case "elicitation":
          return undefined;
      }
    },
  };
}

const VALID: { [K in Exclude<keyof Answers, "plan" | "elicitation">]: readonly Answers[K][] } = {
  permission: ["allow_once", "allow_always", "deny", "deny_and_stop"] as PermissionAnswer[],
  trust: [true, false],
  "mcp-server": ["approve", "deny", "skip"],
  hooks: [true, false],
};

/** Whether `answer` is an answer of `kind`. */
function isValid(kind: keyof Answers, answer: unknown): boolean {
  if (kind === "permission" && isVerdict(answer)) return true;
  // Its content is checked against the server's schema by the MCP capability, which asks again.
  if (kind === "elicitation")
    return (
      typeof answer === "object" &&
      answer !== null &&
      ["accept", "decline", "cancel"].includes((answer as { action?: string }).action ?? "")
    );
  if (kind !== "plan") return (VALID[kind] as readonly unknown[]).includes(answer);
  if (typeof answer !== "object" || answer === null) return false;
  const a = answer as { approve?: unknown; refine?: unknown };
  return a.approve === "default" || a.approve === "acceptEdits" || typeof a.refine === "string";
}

/**
 * The harness's side of the seam: which kinds anyone can answer (a kind nobody answers is not asked at all,
 * as print mode asks nothing), and the answer with the refusal for every failure.
 */
export class Questions {
  constructor(
    private readonly asker: Asker,
    private readonly answerable: ReadonlySet<Question["kind"]>,
    /** The kinds the `Asker` seam answers (not the one-function options). */
    private readonly bySeam: ReadonlySet<Question["kind"]> = new Set(),
    private readonly seam?: Asker,
  ) {}

  /** The seam over `asker` (answering its `kinds`) and, for the kinds it leaves, the older options. */
  static from(asker: Asker | undefined, callbacks: AskCallbacks): Questions {
    const kinds: readonly Question["kind"][] = asker?.kinds ?? [
      "permission",
      "trust",
      "mcp-server",
      "hooks",
      "elicitation",
    ];
    const fallback = askerFromCallbacks(callbacks);
    const answerable = new Set<Question["kind"]>(asker ? kinds : []);
    if (callbacks.ask) answerable.add("permission");
    if (callbacks.askTrust) answerable.add("trust");
    if (callbacks.approveMcp) answerable.add("mcp-server");
    if (callbacks.approveHooks) answerable.add("hooks");
    const combined: Asker = {
      ask: (question) =>
        asker && kinds.includes(question.kind) ? asker.ask(question) : fallback.ask(question),
    };
    return new Questions(combined, answerable, new Set(asker ? kinds : []), asker);
  }

  /** Whether the `Asker` seam (not a one-function option) answers this kind. */
  answeredBySeam(kind: Question["kind"]): boolean {
    return this.bySeam.has(kind);
  }

  /** Tells the seam's front-end what became of an answer. */
  notify(message: string): void {
    this.seam?.notify?.(message);
  }

  canAsk(kind: Question["kind"]): boolean {
    return this.answerable.has(kind);
  }

  /** Asks; a missing answer, a throw or a withdrawn question is the kind's refusal. */
  async ask<K extends Question["kind"]>(question: Extract<Question, { kind: K }>): Promise<Answers[K]> {
    const refusal = REFUSALS[question.kind as K];
    const asked = question as Question;
    const signal =
      asked.kind === "permission" || asked.kind === "elicitation"
        ? asked.request.signal
        : asked.kind === "plan"
          ? asked.signal
          : undefined;
    try {
      const answer = await this.asker.ask(asked);
      if (signal?.aborted) return refusal;
      return isValid(question.kind, answer) ? (answer as Answers[K]) : refusal;
    } catch {
      return refusal;
    }
  }

  /** The question as the one-function option a part of the harness takes, or undefined when nobody answers it. */
  asFunction<K extends Question["kind"], A>(
    kind: K,
    wrap: (argument: A) => Extract<Question, { kind: K }>,
  ): ((argument: A) => Promise<Answers[K]>) | undefined {
    return this.canAsk(kind) ? (argument: A) => this.ask(wrap(argument)) : undefined;
  }
}

/** A detailed permission verdict of the right shape (anything else is a refusal). */
function isVerdict(answer: unknown): answer is PermissionVerdict {
  if (typeof answer !== "object" || answer === null) return false;
  const behavior = (answer as { behavior?: unknown }).behavior;
  return behavior === "allow" || behavior === "deny";
}
