import type { Message, TextBlock, ToolDefinition, UserMessage } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import { buildSystemPrompt } from "./build-system-prompt.js";
import { applyCacheBreakpoints } from "./cache-breakpoints.js";
import { messageKeyOf } from "./canonical-json.js";
import { changedFilesSource, type TrackedFile } from "./changed-files-source.js";
import { dateChangeSource } from "./date-change-source.js";
import type { GitSnapshot, GitSnapshotOptions } from "./git-snapshot.js";
import { pathRulesSource } from "./path-rules-source.js";
import { comparePrefix, type PrefixReport } from "./prefix-diagnostics.js";
import type { ProjectInstructions } from "./project-instructions.js";
import { projectInstructionsSource } from "./project-instructions-source.js";
import { injectReminders, ReminderEngine, type ReminderSource } from "./reminder-engine.js";
import { skillsSource } from "./skills-source.js";
import { type ToolNudgeOptions, toolNudgeSource } from "./tool-nudge-source.js";

/** Something the caller should show or log; the loop turns these into `warning` agent events. */
export interface ContextWarning {
  code: "prefix-broken" | "reminder-source-failed";
  turn: number;
  message: string;
  /** For `prefix-broken`. */
  report?: PrefixReport;
}

export interface CreateContextOptions {
  cwd: string;
  /** The workspace folders besides `cwd` for the built system prompt's environment section (read once, at creation). */
  additionalFolders?: readonly string[];
  model: string;
  /** The home folder for `~/.mitsu`; default `os.homedir()`. */
  home?: string;
  /** The clock; default `() => new Date()`. The system prompt uses its value at creation. */
  now?: () => Date;
  /** The `tools` field of the session; the core prompt describes the built-in ones among them. */
  tools: ToolDefinition[];
  /** Use this system prompt instead of building one (e.g. a resumed session keeps the one it was sent with). */
  system?: TextBlock[];
  /** When the given `system` was built (its environment names that date): a later day is reminded. Default now. */
  systemDate?: Date;
  /** Appended to the built system prompt as its own block. */
  extra?: string;
  /** False: the built system prompt leaves out mitsu's software-engineering instructions (see `corePrompt`). */
  codingInstructions?: boolean;
  /** Project instructions as a reminder; default true. `{ repeat: true }` also repeats them every `remindEvery` rounds. */
  instructions?: boolean | { repeat?: boolean };
  /** The skills list text, from the skills module. */
  skills?: () => string | undefined | Promise<string | undefined>;
  /** The files Read so far with their mtime at reading, from the tools. */
  trackedFiles?: () => readonly TrackedFile[] | Promise<readonly TrackedFile[]>;
  /** "Tool X not used for a while" nudges. */
  nudges?: ToolNudgeOptions[];
  /** Tell the model when the day changes; default true. */
  dateChange?: boolean;
  /** More sources, after the built-in ones. */
  sources?: ReminderSource[];
  /** See `ReminderEngineOptions.remindEvery`; default 10. */
  remindEvery?: number;
  /** Add Anthropic `cache_control` breakpoints; default true (other providers ignore them). */
  cacheBreakpoints?: boolean;
  cacheTtl?: "5m" | "1h";
  onWarning?: (warning: ContextWarning) => void;
  git?: GitSnapshotOptions;
  /** For the built system prompt: a snapshot already taken or under way (see `buildSystemPrompt`). */
  gitSnapshot?: GitSnapshot | Promise<GitSnapshot>;
  /** Injectable for tests; default `process.env` / `process.platform`. */
  env?: Record<string, string | undefined>;
  platform?: string;
}

/** A session's context: the stable `system`, and the per-request step the loop calls before sending. */
export interface Context {
  /** Built once; pass it as `request.system` on every turn. */
  readonly system: TextBlock[];
  readonly tools: ToolDefinition[];
  readonly reminders: ReminderEngine;
  /** One report per prepared request after the first, in order. */
  readonly diagnostics: PrefixReport[];
  readonly warnings: ContextWarning[];
  /** The project instructions as last loaded (after the first request), for `mitsu inspect`. */
  instructions(): ProjectInstructions | undefined;
  /**
   * For the loop's `prepareRequest`: adds this turn's reminders to the newest user message (only when
   * that message is new — history as sent is never touched), applies cache breakpoints, and compares
   * the result with the previous request (a `prefix-broken` warning names the first difference).
   * Returns a new request; the argument is not changed.
   */
  prepareRequest(request: ModelRequest, info: PrepareInfo): Promise<ModelRequest>;
  /**
   * Says why the next request may not extend the previous one (an MCP server changed its tools between two user
   * turns): if it does not, the `prefix-broken` warning gives this reason. Used once, by the next request.
   */
  explainNextChange(reason: string): void;
}

/** What the loop tells `prepareRequest` (the loop's `PrepareRequestInfo`; `warn` and `newEpoch` optional). */
export interface PrepareInfo {
  turn: number;
  /**
   * This request follows a history replacement: a new prefix epoch, named by `reason` in the diagnostics.
   * `keepReminders`: the messages that carried the project instructions and the skills list are still there
   * (a rewind to a later prompt), so they are not sent again.
   */
  newEpoch?: { reason: string; keepReminders?: boolean };
  /** Where warnings found while preparing go (the loop yields them as `warning` events), besides `onWarning`. */
  warn?: (code: string, message: string) => void;
}

export async function createContext(options: CreateContextOptions): Promise<Context> {
  const now = options.now ?? (() => new Date());
  const start = now();
  const system =
    options.system ??
    (await buildSystemPrompt({
      cwd: options.cwd,
      ...(options.additionalFolders ? { additionalFolders: options.additionalFolders } : {}),
      model: options.model,
      now: start,
      toolNames: options.tools.map((t) => t.name),
      ...(options.home !== undefined ? { home: options.home } : {}),
      ...(options.extra !== undefined ? { extra: options.extra } : {}),
      ...(options.codingInstructions === false ? { codingInstructions: false } : {}),
      ...(options.git ? { git: options.git } : {}),
      ...(options.gitSnapshot ? { gitSnapshot: options.gitSnapshot } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.platform ? { platform: options.platform } : {}),
    }));

  const diagnostics: PrefixReport[] = [];
  const warnings: ContextWarning[] = [];
  let currentTurn = 0;
  let currentWarn: PrepareInfo["warn"];
  const warn = (warning: ContextWarning) => {
    warnings.push(warning);
    options.onWarning?.(warning);
    currentWarn?.(warning.code, warning.message);
  };

  let instructions: ProjectInstructions | undefined;
  const sources: ReminderSource[] = [];
  if (options.instructions !== false) {
    const repeat = typeof options.instructions === "object" && options.instructions.repeat === true;
    sources.push(
      projectInstructionsSource({
        cwd: options.cwd,
        ...(options.home !== undefined ? { home: options.home } : {}),
        repeat,
        onLoad: (loaded) => {
          instructions = loaded;
        },
      }),
    );
  }
  if (options.skills) sources.push(skillsSource(options.skills));
  if (options.trackedFiles) {
    sources.push(changedFilesSource(options.trackedFiles));
    if (options.instructions !== false) {
      sources.push(pathRulesSource(() => instructions?.conditional ?? [], options.trackedFiles));
    }
  }
  for (const nudge of options.nudges ?? []) sources.push(toolNudgeSource(nudge));
  if (options.dateChange !== false) sources.push(dateChangeSource({ start: options.systemDate ?? start }));
  sources.push(...(options.sources ?? []));
  const reminders = new ReminderEngine({
    sources,
    ...(options.remindEvery !== undefined ? { remindEvery: options.remindEvery } : {}),
    onError: (source, error) =>
      warn({
        code: "reminder-source-failed",
        turn: currentTurn,
        message: `Reminder source "${source}" failed and was skipped: ${error instanceof Error ? error.message : String(error)}`,
      }),
  });

  let previous: ModelRequest | undefined;
  let changeReason: string | undefined;
  /** The newest user message as the loop gave it and as we sent it: a retry of the same turn reuses it. */
  let lastPrepared: { index: number; raw: Message; sent: UserMessage } | undefined;

  const withReminders = async (request: ModelRequest, turn: number): Promise<Message[]> => {
    const index = request.messages.length - 1;
    const newest = request.messages[index];
    if (newest === undefined || newest.role !== "user") return request.messages;
    if (lastPrepared && lastPrepared.index === index) {
      // Already prepared (the loop stored what we returned), or the same turn again without it: by identity
      // first (the common case, no serialising of a large message), then by content.
      const { raw, sent } = lastPrepared;
      if (newest === sent) return request.messages;
      if (newest === raw) return [...request.messages.slice(0, index), sent];
      const key = messageKeyOf(newest);
      if (key === messageKeyOf(sent)) return request.messages;
      if (key === messageKeyOf(raw)) return [...request.messages.slice(0, index), sent];
    }
    // A message at an index the previous request already had is history: never rewrite it.
    if (previous && index < previous.messages.length) return request.messages;
    const firstUserMessage = request.messages.filter((m) => m.role === "user").length === 1;
    const found = await reminders.collect({
      turn,
      messages: request.messages,
      now: now(),
      firstUserMessage,
    });
    const sent = injectReminders(
      newest,
      found.map((r) => r.block),
    );
    lastPrepared = { index, raw: newest, sent };
    return [...request.messages.slice(0, index), sent];
  };

  return {
    system,
    tools: options.tools,
    reminders,
    diagnostics,
    warnings,
    instructions: () => instructions,
    explainNextChange(reason) {
      changeReason = reason;
    },
    async prepareRequest(request, info) {
      currentTurn = info.turn;
      currentWarn = info.warn;
      try {
        return await prepare(request, info);
      } finally {
        currentWarn = undefined;
      }
    },
  };

  async function prepare(request: ModelRequest, info: PrepareInfo): Promise<ModelRequest> {
    if (info.newEpoch) {
      // A replaced history (compaction) is a new conversation prefix: nothing before it is history any more.
      previous = undefined;
      lastPrepared = undefined;
      // The removed messages carried the project instructions and the skills list: they are sent again.
      if (!info.newEpoch.keepReminders) reminders.reset();
    }
    const messages = await withReminders(request, info.turn);
    let prepared: ModelRequest = { ...request, messages };
    if (options.cacheBreakpoints !== false) {
      prepared = applyCacheBreakpoints(prepared, options.cacheTtl ? { ttl: options.cacheTtl } : {});
    }
    if (info.newEpoch) {
      diagnostics.push({ ok: true, epoch: info.newEpoch.reason });
    } else if (previous) {
      const report = comparePrefix(previous, prepared);
      diagnostics.push(report);
      if (!report.ok) {
        warn({
          code: "prefix-broken",
          turn: info.turn,
          message: `This request does not extend the previous one (${report.difference})${changeReason ? ` because ${changeReason}` : ""}: the prompt cache cannot be read past that point.`,
          report,
        });
      }
    }
    changeReason = undefined;
    previous = prepared;
    return prepared;
  }
}
