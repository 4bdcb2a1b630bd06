/** Header names that carry secrets by convention. */
const SECRET_NAME =
  /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie|set-cookie)$/i;

/**
 * Any name that says it holds a key, a token, a secret, a password or credentials. `tokens` is left out: the
 * rate-limit headers (`anthropic-ratelimit-input-tokens-remaining`) count tokens and help in a dump.
 */
const SECRET_WORD = /key|token(?!s)|secret|passw|credential|auth|cookie/i;

/** Headers that only describe the request, also when a user configures them (`anthropic-beta` via models.json). */
const NEVER_SECRET =
  /^(content-type|accept|accept-encoding|user-agent|anthropic-version|anthropic-beta|openai-beta)$/i;

/**
 * True when a header's value must not be shown or written: a conventional secret header, a name with a secret
 * word in it, or one of `configured` (the headers a user set in models.json, which are there to authenticate
 * more often than not), except the few that only describe the request.
 */
export function isSecretHeader(name: string, configured: readonly string[] = []): boolean {
  if (NEVER_SECRET.test(name)) return false;
  const lower = name.toLowerCase();
  return (
    SECRET_NAME.test(name) || SECRET_WORD.test(name) || configured.some((c) => c.toLowerCase() === lower)
  );
}

/** `"<redacted>"`, keeping a Bearer scheme (`Bearer <redacted>`) so a reader sees which kind was sent. */
export function redactedValue(value: string): string {
  return /^bearer /i.test(value) ? `${value.slice(0, 7)}<redacted>` : "<redacted>";
}

/** A copy of the headers with every secret value (see `isSecretHeader`) replaced by `redactedValue`. */
export function redactHeaders(
  headers: Record<string, string>,
  configured: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = isSecretHeader(name, configured) ? redactedValue(value) : value;
  }
  return out;
}
