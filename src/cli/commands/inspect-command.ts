import type { CompactionPreview } from "../../compaction/index.js";
import { sizeBreakdown } from "../../context/index.js";
import { type CodingAgent, createCodingAgent } from "../../harness/index.js";
import type { Message } from "../../messages/index.js";
import type { EncodedRequest, ModelRequest } from "../../providers/provider.js";
import type { PrintIo } from "../cli-io.js";
import { showControls, stripControls, terminalJson } from "../render/terminal-text.js";

export interface InspectOptions {
  prompt: string;
  model: string;
  provider: string | undefined;
  maxTokens: number | undefined;
  toolProtocol: "native" | "xml";
  json: boolean;
  addDirs: string[];
  /** Show the summarisation request of `/compact [focus]` (a string: the focus) and the history after it. */
  compact?: string | true;
  /** The session to look at (`-r file`), or the newest of this folder (`-c`). */
  resume?: string;
  continueSession?: boolean;
  /** Show this sub-agent type's first request for the prompt as its task, instead of the main agent's. */
  agent?: string;
}

/** Placeholder keys so that a request can be shown without one; `encode` redacts keys anyway. */
const PLACEHOLDER_KEYS = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"];

/**
 * `mitsu inspect "prompt"`: the exact HTTP request mitsu would send first for this workspace — system,
 * tools and messages with the reminders and cache breakpoints — and what each part weighs. Sends nothing.
 * With `agent`, the same for the first request of that sub-agent type, given the prompt as its task.
 */
export async function inspectCommand(options: InspectOptions, io: PrintIo): Promise<number> {
  const env = { ...io.env };
  for (const key of PLACEHOLDER_KEYS) env[key] ??= "<not set>";
  const model = withProvider(options.model, options.provider);
  const agent = await createCodingAgent({
    cwd: io.cwd,
    home: io.home,
    env,
    model,
    permissionMode: "default",
    addDirs: options.addDirs,
    toolProtocol: options.toolProtocol,
    ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}),
    onWarning: (m) => io.stderr.write(`⚠ ${stripControls(m)}\n`),
    session: {
      log: false,
      ...(options.resume ? { resume: options.resume } : {}),
      ...(options.continueSession ? { continue: true } : {}),
    },
  });
  if (options.compact !== undefined) {
    const focus = typeof options.compact === "string" ? options.compact : undefined;
    return await inspectCompaction(agent, focus, options.json, io);
  }
  const expansion = agent.expandSlash(options.prompt);
  if (expansion.kind === "unknown") {
    io.stderr.write(`mitsu: unknown command /${expansion.name}\n`);
    await agent.close();
    return 1;
  }
  let text = expansion.kind === "prompt" ? expansion.text : options.prompt;
  if (expansion.kind === "mcp-prompt") {
    try {
      text = await expansion.expand();
    } catch (error) {
      io.stderr.write(`mitsu: ${stripControls((error as Error).message)}\n`);
      await agent.close();
      return 1;
    }
  }
  let prepared: ModelRequest;
  let provider = agent.provider;
  if (options.agent !== undefined) {
    const preview = await agent.previewSubagentRequest(options.agent, text).catch((error: unknown) => {
      io.stderr.write(`mitsu: ${error instanceof Error ? error.message : String(error)}\n`);
      return null;
    });
    if (preview === null) {
      await agent.close();
      return 1;
    }
    if (!preview) {
      await agent.close();
      const names = agent.agents.agents.map((a) => a.name).join(", ");
      io.stderr.write(`mitsu: unknown agent ${options.agent}. Agents: ${names} (see \`mitsu agents\`)\n`);
      return 1;
    }
    prepared = preview.request;
    provider = preview.provider;
  } else {
    prepared = await agent.previewRequest(text);
  }
  await agent.close();
  writeRequest(provider.encode(prepared), options.json, io);
  if (!options.json) io.stdout.write(`${sizeBreakdown(prepared).text}\n`);
  return 0;
}

/** Writes the encoded request: as one JSON document with `json` (nothing follows it then), else as the POST line, the headers and the body. */
function writeRequest(encoded: EncodedRequest, json: boolean | undefined, io: PrintIo): void {
  if (json) {
    io.stdout.write(`${terminalJson(encoded, 2)}\n`);
    return;
  }
  io.stdout.write(`POST ${encoded.url}\n`);
  for (const [key, value] of Object.entries(encoded.headers)) {
    io.stdout.write(`${stripControls(key)}: ${stripControls(value)}\n`);
  }
  io.stdout.write(`\n${terminalJson(encoded.body, 2)}\n\n`);
}

/**
 * `mitsu inspect --compact [focus] -c`: the summarisation request `/compact` would send for the session (the
 * cached transcript as it was, plus the instruction), and the history that would follow: which messages the
 * summary replaces and which stay verbatim. Sends nothing.
 */
async function inspectCompaction(
  agent: CodingAgent,
  focus: string | undefined,
  json: boolean,
  io: PrintIo,
): Promise<number> {
  let preview: CompactionPreview;
  try {
    preview = agent.previewCompaction(focus);
  } catch (error) {
    await agent.close();
    io.stderr.write(
      `mitsu: ${stripControls((error as Error).message)} (inspect --compact looks at a session: add -c or -r <file>)\n`,
    );
    return 1;
  }
  await agent.close();
  writeRequest(agent.provider.encode(preview.request), json, io);
  if (json) return 0;
  io.stdout.write(`${sizeBreakdown(preview.request).text}\n\n`);
  const { limit } = agent.contextWindow();
  const n = (value: number) => value.toLocaleString("en-US");
  io.stdout.write(
    `context now: ~${n(preview.tokensBefore)} of ${n(limit)} tokens; automatic compaction at ${agent.compactionThreshold === undefined ? "(off)" : `~${n(agent.compactionThreshold)}`}\n`,
  );
  io.stdout.write(
    `history after compaction: the summary replaces messages[0..${preview.removed - 1}] (${preview.removed} messages); ${preview.kept.length} stay verbatim:\n`,
  );
  io.stdout.write("  [summary]  user  (written by the model from the request above)\n");
  for (const [i, message] of preview.kept.entries()) {
    io.stdout.write(`  messages[${preview.removed + i}]  ${message.role}  ${describe(message)}\n`);
  }
  return 0;
}

/** One line about a message: its first text, or the tool calls and results it holds. */
function describe(message: Message): string {
  const parts = message.content.map((block) => {
    if (block.type === "text") return JSON.stringify(block.text.slice(0, 60));
    if (block.type === "tool_use") return `tool_use ${block.name}`;
    if (block.type === "tool_result") return "tool_result";
    return block.type;
  });
  return showControls(parts.join(", "));
}

/** `--provider openai-chat` with `--model anthropic:x` or `x` → `openai-chat:x`. */
export function withProvider(model: string, provider: string | undefined): string {
  if (!provider) return model;
  const colon = model.indexOf(":");
  // The wire format's name, or the registry's provider name (`openai` speaks Chat Completions).
  const name = provider === "openai-chat" ? "openai" : provider;
  return `${name}:${colon === -1 ? model : model.slice(colon + 1)}`;
}
