/** The proxy variables, in either case, as curl and most tools read them. */
const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** True when `env` names a proxy (`HTTPS_PROXY` / `HTTP_PROXY`, either case). */
export function proxyConfigured(env: Record<string, string | undefined>): boolean {
  return PROXY_VARS.some((name) => (env[name] ?? "").trim() !== "");
}

/**
 * A `fetch` that goes through `HTTPS_PROXY` / `HTTP_PROXY` and honours `NO_PROXY` (undici's
 * `EnvHttpProxyAgent`), as Claude Code and the official SDKs behave behind a corporate proxy. Node's own
 * `fetch` ignores those variables. undici is loaded only here, so a run without a proxy does not pay for it.
 */
export async function createProxyFetch(env: Record<string, string | undefined>): Promise<typeof fetch> {
  const undici = await import("undici");
  const pick = (upper: string) => env[upper] ?? env[upper.toLowerCase()];
  const httpsProxy = pick("HTTPS_PROXY");
  const httpProxy = pick("HTTP_PROXY");
  const noProxy = pick("NO_PROXY");
  const dispatcher = new undici.EnvHttpProxyAgent({
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy !== undefined ? { noProxy } : {}),
  });
  return ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undici.fetch(input as never, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
}
