import { BUILTIN_PROVIDERS } from "../../providers/model-registry.js";

/** The variables of a built-in provider, as the model registry reads them. */
function providerEnv(name: string): { key: string; baseURL: string } | undefined {
  const builtin = Object.hasOwn(BUILTIN_PROVIDERS, name) ? BUILTIN_PROVIDERS[name] : undefined;
  return builtin ? { key: builtin.keyEnv.join(" or "), baseURL: builtin.baseURLEnv } : undefined;
}

/** The HTTP status in a provider error's message (`Anthropic API error 401 …`, `HTTP 502 from …`). */
function statusOf(message: string): number | undefined {
  const match = /(?:API error|HTTP) (\d{3})\b/.exec(message);
  return match?.[1] ? Number(match[1]) : undefined;
}

/**
 * What to check after a run failed with `error`, for the errors a user can fix (a key, an address) or wait out
 * (an overloaded or rate-limited API); undefined for the rest, whose message says enough.
 */
export function errorHint(
  error: { type: string; message: string; retryAfterMs?: number },
  providerName: string,
): string | undefined {
  const env = providerEnv(providerName);
  const entry = `the ${providerName} entry of ~/.mitsu/models.json`;
  const status = statusOf(error.message);
  if (error.type === "authentication_error" || status === 401) {
    return `Check the API key: ${env ? env.key : `apiKey or apiKeyEnv in ${entry}`}.`;
  }
  if (error.type === "permission_error" || status === 403) {
    return `The key may not use this model: check ${env ? env.key : entry} and the model name.`;
  }
  if (error.type === "not_found_error" || status === 404) {
    return `Not found: check the model name (--model provider:model, or /model at the terminal)${env ? ` and ${env.baseURL} (if set)` : ` and the baseURL in ${entry}`}.`;
  }
  if (error.type === "network_error" && error.message.includes("(idle timeout)")) {
    return `The server stopped sending: a slow model may need a longer idleTimeoutMs in ${entry}.`;
  }
  if (error.type === "network_error") {
    return `Is the server reachable? Check ${env ? `${env.baseURL} (if set)` : `baseURL in ${entry}`} and the network.`;
  }
  if (
    error.type === "overloaded_error" ||
    error.type === "rate_limit_error" ||
    status === 429 ||
    status === 529
  ) {
    // A wait the server named (retry-after) longer than mitsu's retries is said as it is: "a moment" may be hours.
    if (error.retryAfterMs !== undefined && error.retryAfterMs >= 1000) {
      return `The API is busy or rate-limited and asked to wait ${waitText(error.retryAfterMs)} before the next request (retry-after): try again after that.`;
    }
    return "The API is busy or rate-limited: try again in a moment.";
  }
  return undefined;
}

/** `7200000` as `2 h`, `5400000` as `1 h 30 min`, `90000` as `2 min`, `45000` as `45 s`. */
export function waitText(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 90) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 90) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}
