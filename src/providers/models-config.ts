import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { headerProblem } from "./http/header-problem.js";
import type { ModelPrice } from "./model-prices.js";
import type { OpenAIChatQuirks } from "./openai-chat/quirks.js";

/** The wire protocols a provider entry may name. */
export const APIS = ["anthropic", "openai-chat", "openai-responses", "gemini"] as const;
export type Api = (typeof APIS)[number];

/** One model of a custom provider: an id, or an id with its limits (and a tool protocol). */
export interface CustomModel {
  id: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** `xml` for a model without function calling: the provider is wrapped in the XML-tag protocol. */
  toolProtocol?: "native" | "xml";
  /** USD per million tokens, over the catalog's price (fields left out keep it, or cost nothing). */
  price?: Partial<ModelPrice>;
  /** Whether the model takes images in messages. Default false for a model of a custom provider. */
  images?: boolean;
}

/**
 * A provider entry of `~/.mitsu/models.json`. Under a built-in name (`anthropic`, `openai`, `openai-responses`,
 * `gemini`) it amends that provider (base URL, headers, more models); under any other name it defines one.
 */
export interface CustomProvider {
  /** The wire protocol; required for a new provider, fixed for a built-in one. */
  api?: Api;
  /** As the official clients take it: with `/v1` for OpenAI-style servers, without a version path otherwise. */
  baseURL?: string;
  /** A literal key (prefer `apiKeyEnv`). */
  apiKey?: string;
  /** The environment variable that holds the key; when it is unset, resolution fails naming it. */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  /** For `openai-chat`: a known server's name (`ollama`, `vllm`, …) or quirks over the defaults. */
  quirks?: string | Partial<OpenAIChatQuirks>;
  /** A stream silent this long (ms) is dropped and retried; 0 never (default 90 000). Raise it for slow local models. */
  idleTimeoutMs?: number;
  /** A "still waiting" notice after this long (ms) of silence, and at each multiple (default 15 000; 0 never). */
  stallWarningMs?: number;
  models?: CustomModel[];
}

export interface ModelsConfig {
  providers: Record<string, CustomProvider>;
}

/** Where the file lives: `{home}/.mitsu/models.json`. */
export function modelsConfigPath(home: string = homedir()): string {
  return join(home, ".mitsu", "models.json");
}

/**
 * Reads `~/.mitsu/models.json`: an absent file is an empty config; a file that is not valid JSON or does not
 * have the documented shape is an Error naming the file and the field.
 */
export function loadModelsConfig(home?: string): ModelsConfig {
  const path = modelsConfigPath(home);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { providers: {} };
    throw new Error(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseModelsConfig(raw, path);
}

/** Validates the parsed file (see `CustomProvider`). */
export function parseModelsConfig(raw: unknown, where = "models.json"): ModelsConfig {
  const fail = (field: string, what: string): never => {
    throw new Error(`${where}: ${field} ${what}`);
  };
  if (!isObject(raw)) return fail("the file", "must be a JSON object");
  if (raw.providers === undefined) return { providers: {} };
  if (!isObject(raw.providers)) return fail("providers", "must be an object of provider entries");
  const providers: Record<string, CustomProvider> = {};
  for (const [name, entry] of Object.entries(raw.providers)) {
    const at = `providers.${name}`;
    if (!isObject(entry)) return fail(at, "must be an object");
    const out: CustomProvider = {};
    if (entry.api !== undefined) {
      if (!APIS.includes(entry.api as Api)) return fail(`${at}.api`, `must be one of ${APIS.join(", ")}`);
      out.api = entry.api as Api;
    }
    for (const key of ["baseURL", "apiKey", "apiKeyEnv"] as const) {
      const value = entry[key];
      if (value === undefined) continue;
      if (typeof value !== "string" || value === "")
        return fail(`${at}.${key}`, "must be a non-empty string");
      out[key] = value;
    }
    if (entry.headers !== undefined) {
      if (!isObject(entry.headers) || !Object.values(entry.headers).every((v) => typeof v === "string")) {
        return fail(`${at}.headers`, "must be an object of strings");
      }
      for (const [header, value] of Object.entries(entry.headers as Record<string, string>)) {
        const problem = headerProblem(header, value);
        if (problem !== undefined) return fail(`${at}.headers`, `is invalid: ${problem}`);
      }
      out.headers = entry.headers as Record<string, string>;
    }
    if (entry.quirks !== undefined) {
      if (typeof entry.quirks !== "string" && !isObject(entry.quirks)) {
        return fail(`${at}.quirks`, "must be a server name or an object");
      }
      out.quirks = entry.quirks as string | Partial<OpenAIChatQuirks>;
    }
    for (const key of ["idleTimeoutMs", "stallWarningMs"] as const) {
      const value = entry[key];
      if (value === undefined) continue;
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
        return fail(`${at}.${key}`, "must be a whole number of milliseconds (0: never)");
      }
      out[key] = value;
    }
    if (entry.models !== undefined) {
      if (!Array.isArray(entry.models)) return fail(`${at}.models`, "must be an array");
      out.models = entry.models.map((m, i) => parseModel(m, `${at}.models[${i}]`, fail));
    }
    providers[name] = out;
  }
  return { providers };
}

function parseModel(raw: unknown, at: string, fail: (field: string, what: string) => never): CustomModel {
  if (typeof raw === "string" && raw !== "") return { id: raw };
  if (!isObject(raw) || typeof raw.id !== "string" || raw.id === "") {
    return fail(at, 'must be a model id or {"id": …, "contextWindow"?: …, "maxOutputTokens"?: …}');
  }
  const model: CustomModel = { id: raw.id };
  for (const key of ["contextWindow", "maxOutputTokens"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value <= 0) {
      return fail(`${at}.${key}`, "must be a positive integer");
    }
    model[key] = value;
  }
  if (raw.price !== undefined) {
    if (!isObject(raw.price)) return fail(`${at}.price`, "must be an object of USD per million tokens");
    const price: Partial<ModelPrice> = {};
    for (const [key, value] of Object.entries(raw.price)) {
      if (!PRICE_FIELDS.includes(key as keyof ModelPrice)) {
        return fail(`${at}.price.${key}`, `is not a price field (${PRICE_FIELDS.join(", ")})`);
      }
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
        return fail(`${at}.price.${key}`, "must be a number ≥ 0 (USD per million tokens)");
      }
      price[key as keyof ModelPrice] = value;
    }
    model.price = price;
  }
  if (raw.toolProtocol !== undefined) {
    if (raw.toolProtocol !== "native" && raw.toolProtocol !== "xml") {
      return fail(`${at}.toolProtocol`, 'must be "native" or "xml"');
    }
    model.toolProtocol = raw.toolProtocol;
  }
  if (raw.images !== undefined) {
    if (typeof raw.images !== "boolean") return fail(`${at}.images`, "must be true or false");
    model.images = raw.images;
  }
  return model;
}

const PRICE_FIELDS: ReadonlyArray<keyof ModelPrice> = [
  "input",
  "output",
  "cacheWrite5m",
  "cacheWrite1h",
  "cacheRead",
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every `apiKeyEnv` the config names (of all providers, not only the chosen one): no child process may see them. */
export function configuredKeyEnvNames(config: ModelsConfig): string[] {
  const names = Object.values(config.providers).flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : []));
  return [...new Set(names)];
}

/** Every header name the config sets (lower case): their values are treated as secrets in dumps and `encode`. */
export function configuredHeaderNames(config: ModelsConfig): string[] {
  const names = Object.values(config.providers).flatMap((p) =>
    Object.keys(p.headers ?? {}).map((n) => n.toLowerCase()),
  );
  return [...new Set(names)];
}
