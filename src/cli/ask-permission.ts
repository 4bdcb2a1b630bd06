import type { PermissionAnswer, PermissionRequest } from "../permissions/index.js";
import type { HeldOutput } from "./held-output.js";
import type { LineInput } from "./line-input.js";
import { permissionPreview, readPreviewFile } from "./permission-preview.js";
import type { Style } from "./style.js";
import { showControls } from "./terminal-text.js";

export interface PermissionPromptOptions {
  input: LineInput;
  /** Writes the question (directly, also while `output` is held). */
  write: (text: string) => void;
  /** The run's output: held while a question waits for its answer. */
  output?: HeldOutput;
  style: Style;
  /** The working folder: Edit and Write show their diff against the file there. Absent: no diff, the call only. */
  cwd?: string;
  /** The terminal's width, asked on each question. Default 80. */
  columns?: () => number | undefined;
}

/** The terminal's answer to the permission checker's `ask`. */
export interface PermissionPrompt {
  /**
   * Shows what the call will do (the diff of an Edit or Write, the Bash command; see `permissionPreview`) and why
   * it is asked, then reads `1`/`y` (allow once), `2`/`a` (allow always: the checker adds the suggested rules, and
   * interactive mode saves them to `.mitsu/settings.local.json`) or `3`/`n` (`deny_and_stop`: the turn stops and
   * the user says what to do instead); anything else asks again. Questions from parallel tool calls wait their
   * turn: one question on screen at a time. Ended input denies; a question whose `request.signal` aborts before
   * or while it is shown is withdrawn (denied).
   */
  ask(request: PermissionRequest): Promise<PermissionAnswer>;
  /** Denies the question on screen and every waiting one (the run was interrupted). */
  cancel(): void;
}

export function createPermissionPrompt(options: PermissionPromptOptions): PermissionPrompt {
  const { input, write, style, output } = options;
  let queue: Promise<unknown> = Promise.resolve();
  let interrupted = new AbortController();

  async function askOne(request: PermissionRequest, interrupted: AbortSignal): Promise<PermissionAnswer> {
    const signal = request.signal ? AbortSignal.any([interrupted, request.signal]) : interrupted;
    if (signal.aborted || input.closed) return "deny";
    output?.hold();
    try {
      return await question(request, signal);
    } finally {
      output?.release();
    }
  }

  async function question(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    if (output && !output.atLineStart) write("\n");
    // A sub-agent's call says which sub-agent asks: several may be running at once.
    const who = request.agent
      ? `${style.cyan(`[${showControls(request.agent)}]`)} `
      : request.agentPath
        ? `${style.dim("(a sub-agent)")} `
        : "";
    const file = options.cwd ? await readPreviewFile(request, options.cwd) : undefined;
    if (signal.aborted) return "deny";
    const preview = permissionPreview(request, {
      cwd: options.cwd ?? "/",
      style,
      ...(file ? { file } : {}),
    });
    const width = Math.max(20, (options.columns?.() ?? 80) - 3);
    const lines = preview.lines(width).map((line) => `  ${line}\n`);
    write(
      `${style.yellow("?")} ${who}${style.bold(preview.title)}\n` +
        lines.join("") +
        `  ${style.dim(showControls(request.reason))}\n` +
        `  ${style.dim("3 / n: no, and tell mitsu what to do instead (the turn stops)")}\n`,
    );
    const always = request.suggestedRules.length > 0;
    const question = `Allow? 1 [y]es once${always ? ` / 2 [a]lways (adds ${showControls(request.suggestedRules.join(", ")).replace(/\s*\n\s*/g, " ⏎ ")}) for this project` : ""} / 3 [n]o `;
    for (;;) {
      const line = await input.read(question, { signal, fresh: true });
      if (line === undefined) {
        write("\n");
        return "deny";
      }
      const answer = line.trim().toLowerCase();
      if (answer === "1" || answer === "y" || answer === "yes") return "allow_once";
      if (always && (answer === "2" || answer === "a" || answer === "always")) return "allow_always";
      if (answer === "3" || answer === "n" || answer === "no") return "deny_and_stop";
      write(style.dim(`  Please answer 1 (y)${always ? ", 2 (a)" : ""} or 3 (n).\n`));
    }
  }

  return {
    ask(request) {
      const signal = interrupted.signal;
      const answer = queue.then(() => askOne(request, signal));
      queue = answer.catch(() => undefined);
      return answer;
    },
    cancel() {
      interrupted.abort();
      interrupted = new AbortController();
    },
  };
}
