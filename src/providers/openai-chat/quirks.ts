/**
 * How an OpenAI-compatible server departs from api.openai.com. Held as data, one entry per known server, so a
 * new server is a line here (or a `"quirks": {...}` object in `~/.mitsu/models.json`), not a new class.
 */
export interface OpenAIChatQuirks {
  /** OpenAI's current models reject `max_tokens`; most compatible servers only know `max_tokens`. */
  maxTokensField: "max_tokens" | "max_completion_tokens";
  /** The role of the system prompt (OpenAI's reasoning models also accept `developer`). */
  systemRole: "system" | "developer";
  /** Whether to send `stream_options: {include_usage: true}` (servers that reject unknown fields need false). */
  supportsStreamUsage: boolean;
  /**
   * The delta field that carries reasoning text, read before the usual ones (`reasoning_content`: DeepSeek,
   * vLLM, llama.cpp, LM Studio; `reasoning`: OpenRouter, Ollama). Both usual fields are always read.
   */
  reasoningField?: string;
}

export type KnownServer = "openai" | "ollama" | "llama.cpp" | "vllm" | "lmstudio" | "openrouter" | "generic";

export const OPENAI_CHAT_QUIRKS: Readonly<Record<KnownServer, Readonly<OpenAIChatQuirks>>> = Object.freeze({
  openai: { maxTokensField: "max_completion_tokens", systemRole: "system", supportsStreamUsage: true },
  ollama: {
    maxTokensField: "max_tokens",
    systemRole: "system",
    supportsStreamUsage: true,
    reasoningField: "reasoning",
  },
  "llama.cpp": {
    maxTokensField: "max_tokens",
    systemRole: "system",
    supportsStreamUsage: true,
    reasoningField: "reasoning_content",
  },
  vllm: {
    maxTokensField: "max_tokens",
    systemRole: "system",
    supportsStreamUsage: true,
    reasoningField: "reasoning_content",
  },
  lmstudio: {
    maxTokensField: "max_tokens",
    systemRole: "system",
    supportsStreamUsage: true,
    reasoningField: "reasoning_content",
  },
  openrouter: {
    maxTokensField: "max_tokens",
    systemRole: "system",
    supportsStreamUsage: true,
    reasoningField: "reasoning",
  },
  /** Any other server that speaks Chat Completions: the widely understood subset. */
  generic: { maxTokensField: "max_tokens", systemRole: "system", supportsStreamUsage: true },
});

/**
 * The quirks to use: a known server's name, an object over the defaults, or — when nothing is given — `openai`
 * for api.openai.com and `generic` for any other base URL. An unknown name is an error that lists the known ones.
 */
export function resolveQuirks(
  quirks: KnownServer | string | Partial<OpenAIChatQuirks> | undefined,
  baseURL: string,
): OpenAIChatQuirks {
  const fallback = isOpenAI(baseURL) ? OPENAI_CHAT_QUIRKS.openai : OPENAI_CHAT_QUIRKS.generic;
  if (quirks === undefined) return { ...fallback };
  if (typeof quirks === "string") {
    const known = (OPENAI_CHAT_QUIRKS as Record<string, OpenAIChatQuirks | undefined>)[quirks];
    if (!known) {
      throw new Error(
        `Unknown OpenAI-compatible server "${quirks}" for quirks; known: ${Object.keys(OPENAI_CHAT_QUIRKS).join(", ")}`,
      );
    }
    return { ...known };
  }
  return { ...fallback, ...quirks };
}

function isOpenAI(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}
