import { createAnthropicProvider } from "./anthropic/anthropic-provider.js";
import { createGeminiProvider } from "./gemini/gemini-provider.js";
import { expandModelAlias } from "./model-alias.js";
import { catalogLimits, DEFAULT_LIMITS, type MODEL_CATALOG, SMALL_MODELS } from "./model-catalog.js";
import { catalogPrice, type ModelPrice } from "./model-prices.js";
import { type Api, type CustomModel, type CustomProvider, loadModelsConfig } from "./models-config.js";
import { createOpenAIChatProvider } from "./openai-chat/openai-chat-provider.js";
import type { KnownServer, OpenAIChatQuirks } from "./openai-chat/quirks.js";
import { createOpenAIResponsesProvider } from "./openai-responses/openai-responses-provider.js";
import type { Provider } from "./provider.js";
import { withXmlToolProtocol } from "./xml/with-xml-tool-protocol.js";

/** What the registry knows of the chosen model. */
export interface ModelEntry {
  /** The provider's name as written in the spec (`anthropic`, `openai`, `ollama`, …). */
  provider: string;
  /** The wire protocol of its adapter. */
  api: Api;
  /** The model id, passed to the provider as is. */
  id: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** False when the id is not in the catalog or models.json: the limits are `DEFAULT_LIMITS`. */
  known: boolean;
  /** `xml` when models.json says the model has no function calling (the provider is wrapped). */
  toolProtocol: "native" | "xml";
  /** What its tokens cost (the catalog's, amended by models.json); undefined when unknown (a local model). */
  price?: ModelPrice;
  /**
   * Whether the model takes images: the catalog's word (true unless it says otherwise, also for ids it does not
   * know: the built-in providers' models do), models.json's `images` for a listed model (default false for a
   * custom provider's model).
   */
  images: boolean;
}

export interface ResolvedModel {
  provider: Provider;
  model: string;
  entry: ModelEntry;
  /**
   * What the user should hear before the first request: a model id of a built-in provider that the catalog does
   * not know (a typo fails with 404 only at the first request), a request that goes out without a key.
   */
  warnings?: string[];
}

export interface ResolveModelOptions {
  /** The home directory whose `.mitsu/models.json` is read (default: the user's). */
  home?: string;
  /** Handed to the adapter (tests, custom transports). */
  fetch?: typeof fetch;
}

/** The built-in providers: their wire protocol, catalog family and the conventional variables. */
export const BUILTIN_PROVIDERS: Readonly<
  Record<
    string,
    { api: Api; family: keyof typeof MODEL_CATALOG; keyEnv: readonly string[]; baseURLEnv: string }
  >
> = Object.freeze({
  anthropic: {
    api: "anthropic",
    family: "anthropic",
    keyEnv: ["ANTHROPIC_API_KEY"],
    baseURLEnv: "ANTHROPIC_BASE_URL",
  },
  openai: { api: "openai-chat", family: "openai", keyEnv: ["OPENAI_API_KEY"], baseURLEnv: "OPENAI_BASE_URL" },
  "openai-responses": {
    api: "openai-responses",
    family: "openai",
    keyEnv: ["OPENAI_API_KEY"],
    baseURLEnv: "OPENAI_BASE_URL",
  },
  gemini: {
    api: "gemini",
    family: "gemini",
    keyEnv: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseURLEnv: "GEMINI_BASE_URL",
  },
});

/**
 * Resolves `provider:model` (e.g. `anthropic:claude-sonnet-4-5`, `openai:gpt-5`, `openai-responses:gpt-5`,
 * `gemini:gemini-2.5-pro`, `ollama:qwen3:8b` with a models.json entry) to a ready provider, the model id and its
 * limits. A bare model id is accepted when its provider is plain from the name (`claude-…`, `gpt-…`, `o3…`,
 * `gemini-…`) or a models.json provider lists it.
 *
 * - A model id the registry does not know is passed through with `DEFAULT_LIMITS`.
 * - Keys: `ANTHROPIC_API_KEY` (or `ANTHROPIC_AUTH_TOKEN`, sent as a Bearer token), `OPENAI_API_KEY`, `GEMINI_API_KEY` (or `GOOGLE_API_KEY`); a models.json entry's
 *   `apiKey` / `apiKeyEnv`. A missing key is an Error that names the variable to set — except for a base URL on
 *   this machine (a local server needs none) and for custom providers that declare no key.
 * - Base URLs: `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL` (with `/v1`), `GEMINI_BASE_URL` (no version path), then the
 *   models.json entry, then the official endpoint.
 */
export function resolveModel(
  spec: string,
  env: Record<string, string | undefined> = process.env,
  options: ResolveModelOptions = {},
): ResolvedModel {
  const config = loadModelsConfig(options.home);
  // Claude Code's aliases (`opus`, `sonnet[1m]`, `opusplan`) name a model; they are never sent as an id.
  const families = Object.fromEntries(Object.entries(BUILTIN_PROVIDERS).map(([name, p]) => [name, p.family]));
  const { providerName, model } = splitSpec(expandModelAlias(spec, families), config.providers);
  const builtin = BUILTIN_PROVIDERS[providerName];
  const custom = config.providers[providerName];
  if (!builtin && !custom) {
    const known = [...new Set([...Object.keys(BUILTIN_PROVIDERS), ...Object.keys(config.providers)])].join(
      ", ",
    );
    throw new Error(`Unknown provider "${providerName}" in "${spec}". Known providers: ${known}.`);
  }
  const api = builtin?.api ?? custom?.api;
  if (api === undefined) {
    throw new Error(
      `models.json: providers.${providerName}.api must name the wire protocol (e.g. "openai-chat")`,
    );
  }

  const listed = custom?.models?.find((m) => m.id === model);
  const limits = listed ? limitsOf(listed) : builtin ? catalogLimits(builtin.family, model) : undefined;
  const entry: ModelEntry = {
    provider: providerName,
    api,
    id: model,
    contextWindow: limits?.contextWindow ?? DEFAULT_LIMITS.contextWindow,
    maxOutputTokens: limits?.maxOutputTokens ?? DEFAULT_LIMITS.maxOutputTokens,
    known: limits !== undefined,
    toolProtocol: listed?.toolProtocol ?? "native",
    images:
      listed?.images ?? (builtin ? (limits as { images?: false } | undefined)?.images !== false : false),
  };
  const listedPrice = builtin ? catalogPrice(builtin.family, model) : undefined;
  const price = listed?.price ? { ...(listedPrice ?? FREE), ...listed.price } : listedPrice;
  if (price) entry.price = price;

  const baseURL = (builtin ? nonEmpty(env[builtin.baseURLEnv]) : undefined) ?? custom?.baseURL;
  // Claude Code's `ANTHROPIC_AUTH_TOKEN`: a Bearer token (gateways, proxies) that stands in for the key.
  const authToken = api === "anthropic" && builtin ? nonEmpty(env.ANTHROPIC_AUTH_TOKEN) : undefined;
  const apiKey =
    authToken !== undefined && nonEmpty(env.ANTHROPIC_API_KEY) === undefined
      ? undefined
      : resolveKey(providerName, builtin?.keyEnv, custom, env, baseURL);
  let provider = createProvider(api, {
    apiKey,
    baseURL,
    headers: custom?.headers,
    quirks: custom?.quirks,
    fetch: options.fetch,
    idleTimeoutMs: custom?.idleTimeoutMs,
    stallWarningMs: custom?.stallWarningMs,
    authToken,
  });
  if (entry.toolProtocol === "xml") provider = withXmlToolProtocol(provider);
  const warnings: string[] = [];
  if (builtin && !limits) {
    warnings.push(
      `"${model}" is not in mitsu's catalog of ${providerName} models: if the name is wrong, the first request fails with 404 (not found); choose another with --model (or /model)`,
    );
  }
  if (builtin && apiKey === undefined && authToken === undefined && baseURL !== undefined) {
    warnings.push(
      `no ${builtin.keyEnv.join(" or ")} is set: requests to ${baseURL} go out without an API key`,
    );
  }
  return warnings.length > 0 ? { provider, model, entry, warnings } : { provider, model, entry };
}

/** The base a models.json price amends when the catalog has none: a field it leaves out costs nothing. */
const FREE: ModelPrice = { input: 0, output: 0, cacheWrite5m: 0, cacheWrite1h: 0, cacheRead: 0 };

/** `provider:model`, splitting at the first colon only (model ids may hold colons: `qwen3:8b`). */
function splitSpec(
  spec: string,
  custom: Record<string, CustomProvider>,
): { providerName: string; model: string } {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(":");
  if (colon > 0) {
    const prefix = trimmed.slice(0, colon);
    if (BUILTIN_PROVIDERS[prefix] || custom[prefix]) {
      const model = trimmed.slice(colon + 1);
      if (model === "") throw new Error(`No model id in "${spec}": write ${prefix}:<model>`);
      return { providerName: prefix, model };
    }
  }
  const inferred = inferProvider(trimmed, custom);
  if (inferred) return { providerName: inferred, model: trimmed };
  if (colon > 0) {
    const known = [...new Set([...Object.keys(BUILTIN_PROVIDERS), ...Object.keys(custom)])].join(", ");
    throw new Error(`Unknown provider "${trimmed.slice(0, colon)}" in "${spec}". Known providers: ${known}.`);
  }
  throw new Error(
    `Cannot tell which provider serves "${spec}": write provider:model, e.g. anthropic:claude-sonnet-4-5, openai:gpt-5 or gemini:gemini-2.5-pro`,
  );
}

function inferProvider(model: string, custom: Record<string, CustomProvider>): string | undefined {
  for (const [name, entry] of Object.entries(custom)) {
    if (entry.models?.some((m) => m.id === model)) return name;
  }
  if (model.startsWith("claude-")) return "anthropic";
  if (model.startsWith("gemini-")) return "gemini";
  if (/^(gpt-|o\d|chatgpt-|codex-)/.test(model)) return "openai";
  return undefined;
}

function limitsOf(model: CustomModel): { contextWindow: number; maxOutputTokens: number } {
  return {
    contextWindow: model.contextWindow ?? DEFAULT_LIMITS.contextWindow,
    maxOutputTokens: model.maxOutputTokens ?? DEFAULT_LIMITS.maxOutputTokens,
  };
}

function resolveKey(
  providerName: string,
  keyEnv: readonly string[] | undefined,
  custom: CustomProvider | undefined,
  env: Record<string, string | undefined>,
  baseURL: string | undefined,
): string | undefined {
  if (custom?.apiKeyEnv !== undefined) {
    const key = nonEmpty(env[custom.apiKeyEnv]);
    if (key === undefined) {
      throw new Error(
        `No API key for ${providerName}: set ${custom.apiKeyEnv} (named by ~/.mitsu/models.json)`,
      );
    }
    return key;
  }
  if (custom?.apiKey !== undefined) return custom.apiKey;
  if (!keyEnv) return undefined; // A custom provider that declares no key: a local server.
  for (const name of keyEnv) {
    const key = nonEmpty(env[name]);
    if (key !== undefined) return key;
  }
  if (baseURL !== undefined && isLocal(baseURL)) return undefined;
  const names = keyEnv.length > 1 ? `${keyEnv[0]} (or ${keyEnv.slice(1).join(", ")})` : keyEnv[0];
  throw new Error(`No API key for ${providerName}: set ${names}`);
}

/** A server on this machine (Ollama, llama.cpp, the simulator) needs no key. */
function isLocal(baseURL: string): boolean {
  try {
    const host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || host === "0.0.0.0" || /^127\./.test(host);
  } catch {
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

interface AdapterSettings {
  apiKey: string | undefined;
  baseURL: string | undefined;
  headers: Record<string, string> | undefined;
  quirks: string | Partial<OpenAIChatQuirks> | undefined;
  fetch: typeof fetch | undefined;
  idleTimeoutMs: number | undefined;
  stallWarningMs: number | undefined;
  authToken: string | undefined;
}

function createProvider(api: Api, s: AdapterSettings): Provider {
  switch (api) {
    case "anthropic":
      return createAnthropicProvider({
        ...(s.apiKey !== undefined ? { apiKey: s.apiKey } : {}),
        ...(s.baseURL !== undefined ? { baseURL: s.baseURL } : {}),
        ...(s.headers !== undefined ? { headers: s.headers } : {}),
        ...(s.fetch !== undefined ? { fetch: s.fetch } : {}),
        idleTimeoutMs: s.idleTimeoutMs,
        stallWarningMs: s.stallWarningMs,
        ...(s.authToken !== undefined ? { authToken: s.authToken } : {}),
      });
    case "openai-chat":
      return createOpenAIChatProvider({
        apiKey: s.apiKey,
        baseURL: s.baseURL,
        headers: s.headers,
        quirks: s.quirks as KnownServer | Partial<OpenAIChatQuirks> | undefined,
        fetch: s.fetch,
        idleTimeoutMs: s.idleTimeoutMs,
        stallWarningMs: s.stallWarningMs,
      });
    case "openai-responses":
      return createOpenAIResponsesProvider({
        apiKey: s.apiKey,
        baseURL: s.baseURL,
        headers: s.headers,
        fetch: s.fetch,
        idleTimeoutMs: s.idleTimeoutMs,
        stallWarningMs: s.stallWarningMs,
      });
    case "gemini":
      return createGeminiProvider({
        apiKey: s.apiKey,
        baseURL: s.baseURL,
        headers: s.headers,
        fetch: s.fetch,
        idleTimeoutMs: s.idleTimeoutMs,
        stallWarningMs: s.stallWarningMs,
      });
  }
}

/**
 * The model for side calls of a session on `entry`: the family's small model (`SMALL_MODELS`) when the session
 * uses a built-in provider with a catalogued model (a custom server may not serve it), else the session's own
 * model. `MITSU_SMALL_MODEL` (a model id of the same provider) overrides it.
 */
export function helperModel(
  entry: ModelEntry,
  env: Record<string, string | undefined> = process.env,
): string {
  const chosen = env.MITSU_SMALL_MODEL?.trim();
  if (chosen) return chosen;
  const builtin = BUILTIN_PROVIDERS[entry.provider];
  if (!builtin || !entry.known) return entry.id;
  return SMALL_MODELS[builtin.family];
}
