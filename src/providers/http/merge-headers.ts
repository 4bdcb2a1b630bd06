/**
 * The request headers: `defaults` (lower-case names) with the caller's `extra` on top. Header names are
 * case-insensitive, so a caller's `Authorization` replaces the default `authorization` instead of being sent
 * beside it.
 */
export function mergeHeaders(
  defaults: Record<string, string>,
  extra: Record<string, string> | undefined,
): Record<string, string> {
  const out = { ...defaults };
  for (const [name, value] of Object.entries(extra ?? {})) out[name.toLowerCase()] = value;
  return out;
}
