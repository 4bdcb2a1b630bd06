import type { AgentPath } from "../loop/agent-event.js";
import type { ToolState } from "../loop/tool-state.js";
/**
 * What `!`command`` and `@file` in a command's or skill's body need: both are injected, so the rules that govern
 * the model's own Bash and Read calls govern these too (and this module knows nothing of tools or permissions).
 */
/** The run a command's or skill's text is expanded for: its abort signal, tool state, and the agent asking. */
export interface InlineRun {
  signal: AbortSignal;
  state: ToolState;
  /** Default `[]` (the top level). */
  agentPath?: AgentPath;
}

export interface InlineCapabilities {
  /**
   * Runs a shell command as the Bash tool would, under the permission rules (an active skill's `allowed-tools`
   * included). Resolves to its output; throws (a denial, a failure to start) with a message that says why.
   */
  runCommand?: (command: string) => Promise<string>;
  /** A text file's content, or undefined when `path` names no file that may be read (it then stays as typed). */
  readFile?: (path: string) => Promise<{ path: string; text: string } | undefined>;
}

/** `!`git status`` : a command to run before the text is sent. */
const COMMAND = /!`([^`\n]+)`/g;
/** `@src/a.ts` at the start or after a space or an opening bracket; trailing punctuation is not part of it. */
const FILE = /(^|[\s(["'])@([^\s`'"()<>[\]{}]+)/g;
const TRAILING = /[.,;:!?]+$/;

/** Lines of a command's output inlined at most (head and tail kept). */
const MAX_OUTPUT_CHARS = 30_000;

/**
 * Expands, in one pass over `text` (what a command or file brings in is never expanded again):
 * - `!`command`` → the command's output, run before the text is sent; a command that is denied or cannot run is
 *   replaced by a note saying so (the rest of the text is still sent);
 * - `@path` → `path`, with the file's content appended as `<file path="…">` blocks; a path that is not a
 *   readable file stays as typed (an npm scope, an e-mail address, a mention).
 * Commands run one at a time, in order, so one may depend on the effect of the one before.
 */
export async function expandInline(text: string, capabilities: InlineCapabilities): Promise<string> {
  const pieces: Array<string | (() => Promise<string>)> = [];
  const files: Array<{ path: string; text: string }> = [];
  let at = 0;
  const pattern = new RegExp(`${COMMAND.source}|${FILE.source}`, "g");
  for (const match of text.matchAll(pattern)) {
    const [whole, command, lead, rawPath] = match;
    const start = match.index;
    pieces.push(text.slice(at, start));
    at = start + whole.length;
    if (command !== undefined) {
      pieces.push(() => runOne(command.trim(), capabilities));
      continue;
    }
    const path = (rawPath ?? "").replace(TRAILING, "");
    const tail = (rawPath ?? "").slice(path.length);
    const file = path !== "" && capabilities.readFile ? await capabilities.readFile(path) : undefined;
    if (!file) {
      pieces.push(whole);
      continue;
    }
    if (!files.some((f) => f.path === file.path)) files.push(file);
    pieces.push(`${lead ?? ""}${path}${tail}`);
  }
  pieces.push(text.slice(at));
  let out = "";
  for (const piece of pieces) out += typeof piece === "string" ? piece : await piece();
  if (files.length === 0) return out;
  const blocks = files.map((file) => `<file path="${file.path}">\n${file.text.replace(/\n$/, "")}\n</file>`);
  return `${out}\n\n${blocks.join("\n\n")}`;
}

async function runOne(command: string, capabilities: InlineCapabilities): Promise<string> {
  if (!capabilities.runCommand) return `[!\`${command}\` was not run: commands cannot run here]`;
  try {
    const output = (await capabilities.runCommand(command)).replace(/\n+$/, "");
    if (output.length <= MAX_OUTPUT_CHARS) return output;
    const half = MAX_OUTPUT_CHARS / 2;
    return `${output.slice(0, half)}\n… [${output.length - MAX_OUTPUT_CHARS} characters omitted] …\n${output.slice(-half)}`;
  } catch (error) {
    return `[!\`${command}\` was not run: ${error instanceof Error ? error.message : String(error)}]`;
  }
}
