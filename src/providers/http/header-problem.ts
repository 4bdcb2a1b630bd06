/** An HTTP header name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * What is wrong with one request header, as fetch would refuse it, or undefined when it is fine: a name that is
 * not a token (a space, a colon, non-ASCII), a value with a line break or NUL (header injection), or a character
 * above U+00FF, which fetch cannot send.
 */
export function headerProblem(name: string, value: string): string | undefined {
  if (!TOKEN.test(name)) return `${JSON.stringify(name)} is not a valid HTTP header name`;
  if (/[\r\n\0]/.test(value)) return `the value of ${name} contains a line break or NUL`;
  if (/[^\u0000-\u00ff]/.test(value))
    return `the value of ${name} has a character fetch cannot send (above U+00FF)`;
  return undefined;
}

/**
 * Whether a fetch failure is fetch refusing the request's headers (a TypeError thrown before any connection),
 * as opposed to a network failure ("fetch failed").
 */
export function isHeaderRejection(cause: unknown): boolean {
  return (
    cause instanceof TypeError &&
    /invalid header (name|value)|Cannot convert argument to a ByteString/i.test(cause.message)
  );
}
