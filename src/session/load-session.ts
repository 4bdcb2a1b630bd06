import { addUsage, emptyUsage, type Message, type ToolResultBlock, type Usage } from "../messages/index.js";
import { sessionLineProblem } from "./check-session-line.js";
import { type LineSpan, openSessionLines, type SessionLines } from "./session-lines.js";
import { SESSION_FORMAT, type SessionEntry, type SessionHeader } from "./session-log.js";

export interface LoadedSession {
  header: SessionHeader;
  /** The transcript: the messages as sent, from the last compaction on. */
  messages: Message[];
  /** Set when the last line was cut (the process was killed mid-write); that line is not loaded. */
  truncatedTail: boolean;
  /**
   * What the log says of tool calls after the last message: ids whose `run` had started, and results logged
   * as they finished. `resumeMessages` answers the last message's calls from these.
   */
  calls: { started: Set<string>; results: Map<string, ToolResultBlock> };
  /** Sub-agent links (`subagent` lines), in order. */
  subagents: Array<{ toolUseId: string; path: string }>;
  /** Usage over the whole file: every answer's (also those a compaction replaced) and every summary's. */
  usage: Usage;
  /** The first message of the whole file (before any compaction): where the user's first prompt is. */
  firstMessage?: Message;
  /** Model calls in the whole file: the top-level agent's answers and the compaction summaries. */
  modelCalls: number;
}

const ENTRY_TYPES: Record<number, ReadonlySet<string>> = {
  1: new Set(["message"]),
  2: new Set(["message", "tool-start", "tool-result", "compaction", "subagent", "rewind"]),
  3: new Set(["message", "tool-start", "tool-result", "compaction", "subagent", "rewind"]),
};

/**
 * Reads a session file of any format up to `SESSION_FORMAT`. A cut last line (a kill mid-write) is dropped
 * and reported; any other bad line — not JSON, or JSON of the wrong shape (see `sessionLineProblem`), or a kind
 * of line its format does not have — is an error that names the file, the line and what is wrong with it: a
 * damaged transcript is never silently shortened, nor sent on to fail later. A file written by a newer mitsu
 * is refused, saying so.
 *
 * A long session is mostly lines that a later compaction replaced (old tool results, old prompts): those are
 * known by their first bytes and not parsed — the file is read 1 MB at a time and only the lines that count are
 * decoded (the transcript from the last compaction on, every answer's usage, sub-agent links, the first
 * message). A 100 MB session resumes in a fraction of the time and memory a whole parse takes; a damaged line
 * among the replaced ones no longer stops a resume (it could not change the transcript).
 */
export function loadSession(path: string): LoadedSession {
  let file: SessionLines;
  try {
    file = openSessionLines(path);
  } catch (error) {
    throw new Error(`Cannot read session ${path}: ${(error as Error).message}`);
  }
  try {
    return loadLines(path, file);
  } finally {
    file.close();
  }
}

function loadLines(path: string, file: SessionLines): LoadedSession {
  const { lines, endsClean } = file;
  let replacedBefore = 0;
  for (let i = lines.length - 1; i > 0; i--) {
    if (lines[i]?.kind === "compaction") {
      replacedBefore = i;
      break;
    }
  }
  let header: SessionHeader | undefined;
  let types: ReadonlySet<string> = new Set();
  let messages: Message[] = [];
  let calls: LoadedSession["calls"] = { started: new Set(), results: new Map() };
  const subagents: LoadedSession["subagents"] = [];
  let truncatedTail = false;
  let usage = emptyUsage();
  let modelCalls = 0;
  let firstMessage: Message | undefined;
  for (let i = 0; i < lines.length; i++) {
    const span = lines[i] as LineSpan;
    // Replaced by the last compaction, and nothing in it counts besides: not even parsed.
    if (i > 0 && i < replacedBefore) {
      if (span.kind === "tool-result" || span.kind === "tool-start" || span.kind === "rewind") continue;
      if (span.kind === "user-message" && firstMessage) continue;
    }
    const raw = file.text(span);
    let line: unknown;
    try {
      line = JSON.parse(raw);
    } catch {
      if (i === lines.length - 1 && !endsClean) {
        truncatedTail = true;
        break;
      }
      throw new Error(`Session ${path} line ${i + 1} is not valid JSON`);
    }
    if (i === 0) checkFormat(path, line);
    const problem = sessionLineProblem(line, i === 0);
    if (problem) throw new Error(`Session ${path} line ${i + 1} ${problem}`);
    if (i === 0) {
      header = line as SessionHeader;
      types = ENTRY_TYPES[header.version] ?? new Set();
      continue;
    }
    const entry = line as SessionEntry;
    if (!types.has(entry.type)) {
      throw new Error(
        `Session ${path} line ${i + 1} has the type "${entry.type}", which format ${header?.version} does not have`,
      );
    }
    if (i < replacedBefore && entry.type === "message" && entry.message.role === "user") {
      // The first prompt, kept for the session's listing; its results (if any) were replaced with it.
      firstMessage ??= entry.message;
      continue;
    }
    switch (entry.type) {
      case "message": {
        const message = withLoggedResults(
          entry.message,
          (header?.version ?? 0) >= 3 ? calls.results : undefined,
          (id) =>
            (header?.version ?? 0) < 3
              ? `Session ${path} line ${i + 1} refers to a logged tool result, which format ${header?.version} does not have`
              : `Session ${path} line ${i + 1} refers to the result of ${id}, which no tool-result line since the previous message holds`,
        );
        messages.push(message);
        firstMessage ??= message;
        if (entry.message.role === "assistant") {
          modelCalls++;
          if (entry.message.usage) usage = addUsage(usage, { ...emptyUsage(), ...entry.message.usage });
        }
        calls = { started: new Set(), results: new Map() };
        break;
      }
      case "tool-start":
        calls.started.add(entry.toolUseId);
        break;
      case "tool-result":
        calls.results.set(entry.result.tool_use_id, entry.result);
        break;
      case "compaction":
        messages = [...entry.messages];
        if (entry.usage) {
          modelCalls++;
          usage = addUsage(usage, { ...emptyUsage(), ...entry.usage });
        }
        calls = { started: new Set(), results: new Map() };
        break;
      case "rewind":
        messages = messages.slice(0, entry.keep);
        calls = { started: new Set(), results: new Map() };
        break;
      case "subagent":
        subagents.push({ toolUseId: entry.toolUseId, path: entry.path });
        break;
    }
  }
  if (!header) throw new Error(`Session ${path} is empty`);
  return {
    header,
    messages,
    truncatedTail,
    calls,
    subagents,
    usage,
    modelCalls,
    ...(firstMessage ? { firstMessage } : {}),
  };
}

/**
 * `message` with each format-3 reference (`LoggedResultRef`) replaced by the result it names (`results`:
 * undefined in an older format, where any reference is an error); throws `missing(id)`.
 */
function withLoggedResults(
  message: Message,
  results: ReadonlyMap<string, ToolResultBlock> | undefined,
  missing: (id: string) => string,
): Message {
  if (message.role !== "user" || !message.content.some((b) => (b as { logged?: unknown }).logged === true))
    return message;
  const content = message.content.map((block) => {
    if (block.type !== "tool_result" || (block as { logged?: unknown }).logged !== true) return block;
    const result = results?.get(block.tool_use_id);
    if (!result) throw new Error(missing(block.tool_use_id));
    return block.cache_control ? { ...result, cache_control: block.cache_control } : result;
  });
  return { ...message, content };
}

/** The header's format, checked first: a newer file is refused before its lines are judged by older rules. */
function checkFormat(path: string, line: unknown): void {
  const version = (line as Partial<SessionHeader> | null)?.version;
  if (typeof version !== "number") return; // `sessionLineProblem` names what is wrong with the header
  if (version > SESSION_FORMAT) {
    throw new Error(
      `This session was written by a newer mitsu (format ${version}); this mitsu reads up to format ${SESSION_FORMAT}. Update mitsu to continue ${path}.`,
    );
  }
  if (!Number.isInteger(version) || version < 1) {
    throw new Error(`Session ${path} line 1 is a session header with an invalid format version (${version})`);
  }
}
