/** Header names that carry secrets: their values never appear in an `EncodedRequest`. */
const SECRET = /^(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key|cookie)$/i;

/** A copy of the headers with every secret value replaced by `"<redacted>"` (the Authorization scheme kept). */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!SECRET.test(name)) out[name] = value;
    else if (/^bearer /i.test(value)) out[name] = `${value.slice(0, 7)}<redacted>`;
    else out[name] = "<redacted>";
  }
  return out;
}
