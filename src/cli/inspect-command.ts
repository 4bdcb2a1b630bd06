import { sizeBreakdown } from "../context/index.js";
import { createCodingAgent } from "../harness/index.js";
import type { ModelRequest } from "../providers/provider.js";
import type { PrintIo } from "./print-mode.js";
import { stripControls, terminalJson } from "./terminal-text.js";

export interface InspectOptions {
  prompt: string;
  model: string;
  provider: string | undefined;
  maxTokens: number | undefined;
  toolProtocol: "native" | "xml";
  json: boolean;
  addDirs: string[];
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
    session: { log: false },
  });
  const expansion = agent.expandSlash(options.prompt);
  if (expansion.kind === "unknown") {
    io.stderr.write(`mitsu: unknown command /${expansion.name}\n`);
    return 1;
  }
  const text = expansion.kind === "prompt" ? expansion.text : options.prompt;
  let prepared: ModelRequest;
  let provider = agent.provider;
  if (options.agent !== undefined) {
    const preview = await agent.previewSubagentRequest(options.agent, text).catch((error: unknown) => {
      io.stderr.write(`mitsu: ${error instanceof Error ? error.message : String(error)}\n`);
      return null;
    });
    if (preview === null) return 1;
    if (!preview) {
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
  const encoded = provider.encode(prepared);
  if (options.json) {
    io.stdout.write(`${terminalJson(encoded, 2)}\n`);
    return 0;
  }
  io.stdout.write(`POST ${encoded.url}\n`);
  for (const [key, value] of Object.entries(encoded.headers)) {
    io.stdout.write(`${stripControls(key)}: ${stripControls(value)}\n`);
  }
  io.stdout.write(`\n${terminalJson(encoded.body, 2)}\n\n`);
  io.stdout.write(`${sizeBreakdown(prepared).text}\n`);
  return 0;
}

/** `--provider openai-chat` with `--model anthropic:x` or `x` → `openai-chat:x`. */
export function withProvider(model: string, provider: string | undefined): string {
  if (!provider) return model;
  const colon = model.indexOf(":");
  // The wire format's name, or the registry's provider name (`openai` speaks Chat Completions).
  const name = provider === "openai-chat" ? "openai" : provider;
  return `${name}:${colon === -1 ? model : model.slice(colon + 1)}`;
}
