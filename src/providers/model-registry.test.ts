import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simpleRequest } from "../../test/provider-harness.js";
import { READ_TOOL } from "../../test/transcript.js";
import { DEFAULT_LIMITS, MODEL_ALIASES } from "./model-catalog.js";
import { resolveModel } from "./model-registry.js";

/** A home directory with the given models.json (or none). */
function home(config?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-models-"));
  if (config !== undefined) {
    mkdirSync(join(dir, ".mitsu"));
    writeFileSync(
      join(dir, ".mitsu", "models.json"),
      typeof config === "string" ? config : JSON.stringify(config),
    );
  }
  return dir;
}

const empty = home();
const keys = { ANTHROPIC_API_KEY: "a-key", OPENAI_API_KEY: "o-key", GEMINI_API_KEY: "g-key" };

describe("resolveModel", () => {
  it("resolves each built-in provider with its catalog limits", () => {
    const cases: Array<[string, string, string, number, number]> = [
      ["anthropic:claude-sonnet-4-5", "anthropic", "https://api.anthropic.com/v1/messages", 200_000, 64_000],
      ["openai:gpt-5", "openai-chat", "https://api.openai.com/v1/chat/completions", 400_000, 128_000],
      [
        "openai-responses:gpt-5-mini",
        "openai-responses",
        "https://api.openai.com/v1/responses",
        400_000,
        128_000,
      ],
      [
        "gemini:gemini-2.5-pro",
        "gemini",
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        1_048_576,
        65_536,
      ],
    ];
    for (const [spec, api, url, contextWindow, maxOutputTokens] of cases) {
      const resolved = resolveModel(spec, keys, { home: empty });
      expect(resolved.provider.api).toBe(api);
      expect(resolved.entry).toMatchObject({
        api,
        contextWindow,
        maxOutputTokens,
        known: true,
        toolProtocol: "native",
      });
      expect(resolved.provider.encode(simpleRequest({ model: resolved.model })).url).toBe(url);
    }
  });

  it("gives a dated snapshot its family's limits", () => {
    const { entry } = resolveModel("openai:gpt-4o-mini-2024-07-18", keys, { home: empty });
    expect(entry).toMatchObject({
      id: "gpt-4o-mini-2024-07-18",
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      known: true,
    });
    expect(
      resolveModel("anthropic:claude-opus-4-1-20250805", keys, { home: empty }).entry.maxOutputTokens,
    ).toBe(32_000);
  });

  it("passes an unknown model id through with default limits", () => {
    const resolved = resolveModel("anthropic:claude-next-9", keys, { home: empty });
    expect(resolved.model).toBe("claude-next-9");
    expect(resolved.entry).toMatchObject({ known: false, ...DEFAULT_LIMITS });
    expect(
      (resolved.provider.encode(simpleRequest({ model: resolved.model })).body as { model: string }).model,
    ).toBe("claude-next-9");
  });

  it("infers the provider of a bare model id", () => {
    // Claude Code's aliases name a model and are never sent as an id; `[1m]` is its 1M-context marker.
    expect(resolveModel("opus", keys, { home: empty }).entry.id).toBe(MODEL_ALIASES.anthropic.opus);
    expect(resolveModel("opusplan", keys, { home: empty }).entry.id).toBe(MODEL_ALIASES.anthropic.opus);
    expect(resolveModel("sonnet[1m]", keys, { home: empty }).entry.id).toBe(MODEL_ALIASES.anthropic.sonnet);
    expect(resolveModel("claude-sonnet-4-5[1m]", keys, { home: empty }).entry.id).toBe("claude-sonnet-4-5");
    expect(resolveModel("openai:haiku", keys, { home: empty }).entry.id).toBe(MODEL_ALIASES.openai.haiku);
    expect(resolveModel("claude-haiku-4-5", keys, { home: empty }).entry.provider).toBe("anthropic");
    expect(resolveModel("gpt-4.1", keys, { home: empty }).entry.provider).toBe("openai");
    expect(resolveModel("o4-mini", keys, { home: empty }).entry.provider).toBe("openai");
    expect(resolveModel("gemini-2.5-flash", keys, { home: empty }).entry.provider).toBe("gemini");
    expect(() => resolveModel("llama3", keys, { home: empty })).toThrow(/write provider:model/);
    expect(() => resolveModel("mistral:large", keys, { home: empty })).toThrow(
      /Unknown provider "mistral".*anthropic/,
    );
  });

  it("names the variable to set when a key is missing", () => {
    expect(() => resolveModel("anthropic:claude-sonnet-4-5", {}, { home: empty })).toThrow(
      "No API key for anthropic: set ANTHROPIC_API_KEY",
    );
    expect(() => resolveModel("openai-responses:gpt-5", {}, { home: empty })).toThrow("set OPENAI_API_KEY");
    expect(() => resolveModel("gemini:gemini-2.5-pro", { GEMINI_API_KEY: "" }, { home: empty })).toThrow(
      "No API key for gemini: set GEMINI_API_KEY (or GOOGLE_API_KEY)",
    );
  });

  it("reads GOOGLE_API_KEY for Gemini and keys into the right headers, redacted in encode", () => {
    const gemini = resolveModel("gemini:gemini-2.5-flash", { GOOGLE_API_KEY: "gk" }, { home: empty });
    expect(gemini.provider.encode(simpleRequest()).headers["x-goog-api-key"]).toBe("<redacted>");
  });

  it("takes base URLs from the *_BASE_URL variables, and needs no key for a local server", () => {
    const env = {
      OPENAI_BASE_URL: "http://localhost:11434/v1",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:4000",
      GEMINI_BASE_URL: "https://proxy.example.com/google",
      GEMINI_API_KEY: "g",
    };
    const openai = resolveModel("openai:qwen3", env, { home: empty });
    expect(openai.provider.encode(simpleRequest()).url).toBe("http://localhost:11434/v1/chat/completions");
    expect(openai.provider.encode(simpleRequest()).headers.authorization).toBeUndefined();
    expect(
      resolveModel("anthropic:claude-sonnet-4-5", env, { home: empty }).provider.encode(simpleRequest()).url,
    ).toBe("http://127.0.0.1:4000/v1/messages");
    expect(
      resolveModel("gemini:gemini-2.5-pro", env, { home: empty }).provider.encode(
        simpleRequest({ model: "gemini-2.5-pro" }),
      ).url,
    ).toBe("https://proxy.example.com/google/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse");
  });
});

describe("resolveModel with ~/.mitsu/models.json", () => {
  const config = home({
    providers: {
      ollama: {
        api: "openai-chat",
        baseURL: "http://localhost:11434/v1",
        quirks: "ollama",
        models: [
          "qwen3:8b",
          { id: "llama3.1:70b", contextWindow: 131_072, maxOutputTokens: 4096 },
          { id: "tiny", toolProtocol: "xml" },
        ],
      },
      work: {
        api: "openai-responses",
        baseURL: "https://llm.example.com/v1",
        apiKeyEnv: "WORK_KEY",
        headers: { "x-team": "t" },
      },
      openai: { models: [{ id: "ft:gpt-4o:acme", contextWindow: 64_000, maxOutputTokens: 2000 }] },
    },
  });

  it("resolves a custom provider's model, with colons in the id and no key", () => {
    const resolved = resolveModel("ollama:qwen3:8b", {}, { home: config });
    expect(resolved.model).toBe("qwen3:8b");
    expect(resolved.entry).toMatchObject({
      provider: "ollama",
      api: "openai-chat",
      known: true,
      ...DEFAULT_LIMITS,
    });
    const encoded = resolved.provider.encode(simpleRequest({ model: resolved.model }));
    expect(encoded.url).toBe("http://localhost:11434/v1/chat/completions");
    // Ollama's quirks: max_tokens.
    expect((encoded.body as Record<string, unknown>).max_tokens).toBe(1024);
    expect(resolveModel("ollama:llama3.1:70b", {}, { home: config }).entry).toMatchObject({
      contextWindow: 131_072,
      maxOutputTokens: 4096,
    });
    // A bare id that a custom provider lists.
    expect(resolveModel("llama3.1:70b", {}, { home: config }).entry.provider).toBe("ollama");
  });

  it("wraps a model marked toolProtocol xml in the XML-tag protocol", () => {
    const resolved = resolveModel("ollama:tiny", {}, { home: config });
    expect(resolved.entry.toolProtocol).toBe("xml");
    const body = resolved.provider.encode(simpleRequest({ model: "tiny", tools: [READ_TOOL] }))
      .body as Record<string, unknown>;
    expect(body.tools).toBeUndefined();
    expect(JSON.stringify(body.messages)).toContain("<tool_call name=");
  });

  it("reads a custom provider's key from its apiKeyEnv, naming it when unset", () => {
    expect(() => resolveModel("work:big-model", {}, { home: config })).toThrow("set WORK_KEY");
    const resolved = resolveModel("work:big-model", { WORK_KEY: "w" }, { home: config });
    const encoded = resolved.provider.encode(simpleRequest());
    expect(encoded.url).toBe("https://llm.example.com/v1/responses");
    expect(encoded.headers).toMatchObject({ authorization: "Bearer <redacted>", "x-team": "<redacted>" });
    expect(resolved.entry.known).toBe(false);
  });

  it("amends a built-in provider with more models", () => {
    expect(resolveModel("openai:ft:gpt-4o:acme", keys, { home: config }).entry).toMatchObject({
      provider: "openai",
      contextWindow: 64_000,
      known: true,
    });
  });

  it("names the file and the field when models.json is wrong", () => {
    expect(() => resolveModel("x:y", {}, { home: home("{ not json") })).toThrow(
      /models\.json is not valid JSON/,
    );
    expect(() => resolveModel("x:y", {}, { home: home({ providers: { x: { api: "soap" } } }) })).toThrow(
      /providers\.x\.api must be one of anthropic, openai-chat, openai-responses, gemini/,
    );
    expect(() =>
      resolveModel("x:y", {}, { home: home({ providers: { x: { baseURL: "http://localhost/v1" } } }) }),
    ).toThrow(/providers\.x\.api must name the wire protocol/);
    expect(() =>
      resolveModel(
        "x:y",
        {},
        {
          home: home({ providers: { x: { api: "openai-chat", models: [{ id: "y", contextWindow: -1 }] } } }),
        },
      ),
    ).toThrow(/providers\.x\.models\[0\]\.contextWindow must be a positive integer/);
  });

  it("an invalid header name in models.json is an error naming the file, the provider and the header, not a network error", () => {
    const at = (headers: Record<string, string>) =>
      home({ providers: { work: { api: "openai-chat", baseURL: "http://localhost/v1", headers } } });
    const file = /models\.json: providers\.work\.headers is invalid: /;
    expect(() => resolveModel("work:m", {}, { home: at({ "x team": "t" }) })).toThrow(file);
    expect(() => resolveModel("work:m", {}, { home: at({ "x team": "t" }) })).toThrow(
      '"x team" is not a valid HTTP header name',
    );
    expect(() => resolveModel("work:m", {}, { home: at({ "x-team": "a\r\nx-admin: 1" }) })).toThrow(
      "the value of x-team contains a line break or NUL",
    );
    expect(() => resolveModel("work:m", {}, { home: at({ "x-team": "日本" }) })).toThrow(/above U\+00FF/);
    expect(
      resolveModel("work:m", {}, { home: at({ "x-team": "t", "X-Trace_Id.v2": "é" }) }).entry.provider,
    ).toBe("work");
  });

  it("takes a provider's idle limits from models.json and refuses ones that are not whole milliseconds", () => {
    const at = (limits: Record<string, unknown>) =>
      home({ providers: { local: { api: "openai-chat", baseURL: "http://localhost/v1", ...limits } } });
    expect(
      resolveModel("local:m", {}, { home: at({ idleTimeoutMs: 600_000, stallWarningMs: 0 }) }).model,
    ).toBe("m");
    expect(() => resolveModel("local:m", {}, { home: at({ idleTimeoutMs: -1 }) })).toThrow(
      /providers\.local\.idleTimeoutMs must be a whole number of milliseconds/,
    );
  });
});
