/** Query parameters whose values are credentials in the wild (`?key=`, `?access_token=`, `?sig=`). */
const SECRET_PARAM = /^(api[-_]?key|key|token|access[-_]?token|secret|sig|signature|password|code)$/i;

/**
 * `url` as an error message may show it: a user name and password in it (`https://user:pass@proxy/`) and the values
 * of credential-like query parameters become `<redacted>`. A string that is not a URL is returned as it is.
 */
export function shownUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let shown = url;
  if (parsed.username || parsed.password) {
    const userinfo = `${parsed.username}${parsed.password ? `:${parsed.password}` : ""}@`;
    shown = shown.replace(userinfo, "<redacted>@");
  }
  for (const [name, value] of parsed.searchParams)
    if (SECRET_PARAM.test(name) && value !== "")
      shown = shown
        .replace(`${name}=${encodeURIComponent(value)}`, `${name}=<redacted>`)
        .replace(`${name}=${value}`, `${name}=<redacted>`);
  return shown;
}

/** `text` with every occurrence of `url` shown as `shownUrl` shows it (a fetch error quotes the URL it was given). */
export function withUrlShown(text: string, url: string): string {
  const shown = shownUrl(url);
  return shown === url ? text : text.split(url).join(shown);
}
