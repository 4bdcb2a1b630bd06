/**
 * Every built-in provider's key and base URL pointed at a simulator serving at `url` (it speaks all their wires):
 * whichever model is picked (anthropic:…, openai:…, openai-responses:…, gemini:…), no request leaves the machine.
 */
export function providerEnv(url: string): Record<string, string> {
  return {
    ANTHROPIC_API_KEY: "sim-key",
    ANTHROPIC_BASE_URL: url,
    OPENAI_API_KEY: "sim-key",
    OPENAI_BASE_URL: `${url}/v1`,
    GEMINI_API_KEY: "sim-key",
    GEMINI_BASE_URL: url,
  };
}
