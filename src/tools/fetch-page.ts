import { ToolError } from "../loop/tool.js";
import { htmlToMarkdown } from "./html-to-markdown.js";

export interface FetchPageOptions {
  fetch: typeof fetch;
  signal: AbortSignal;
  /** Bytes of body read at most; the rest is not downloaded. */
  maxBytes: number;
  maxRedirects: number;
}

/** A fetched page, as text the model can read. */
export type FetchedPage =
  | {
      kind: "page";
      /** The URL the content came from (after redirects on the same host). */
      url: string;
      status: number;
      contentType: string;
      /** Markdown for HTML, the text itself for other text types. */
      content: string;
      /** The body was longer than `maxBytes` and was cut there. */
      truncatedBytes: boolean;
    }
  /** The server sent the client elsewhere, to another host: reported, not followed (it needs its own permission). */
  | { kind: "redirect"; url: string; location: string; status: number };

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|xml|xhtml\+xml|javascript|x-javascript|rss\+xml|atom\+xml|x-yaml|yaml|toml|x-sh)\b)/i;
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/** Whether `to` counts as the same site as `from` for a redirect: the same host, `www.` aside, and no downgrade to http. */
function sameHost(from: URL, to: URL): boolean {
  const bare = (host: string) => host.toLowerCase().replace(/^www\./, "");
  if (from.protocol === "https:" && to.protocol === "http:") return false;
  return bare(from.hostname) === bare(to.hostname) && from.port === to.port;
}

/** Parses and checks a URL the model gave: http or https, no credentials in it. */
export function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolError(
      `${JSON.stringify(raw)} is not a valid URL; give a full URL such as https://example.com/page.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new ToolError("URLs with a user name or password in them are not fetched.");
  }
  return url;
}

/**
 * GETs a page, following redirects only on the same host (at most `maxRedirects`), reading at most `maxBytes`
 * of it, and turns it into text: HTML into Markdown, other text types as they are. Anything else (images,
 * PDFs, archives) is refused with a ToolError that names the type, as are HTTP errors.
 */
export async function fetchPage(start: URL, options: FetchPageOptions): Promise<FetchedPage> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await options
      .fetch(url, {
        redirect: "manual",
        signal: options.signal,
        headers: {
          "user-agent": "Mozilla/5.0 (compatible; mitsu-WebFetch/1.0)",
          accept: "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,*/*;q=0.5",
        },
      })
      .catch((error: unknown) => {
        if (options.signal.aborted) throw options.signal.reason ?? error;
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new ToolError(
          `Cannot fetch ${url.href}: ${cause?.message ?? cause?.code ?? (error as Error).message}`,
        );
      });
    if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location") ?? "";
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        throw new ToolError(`${url.href} redirected to an invalid location: ${JSON.stringify(location)}`);
      }
      if (!sameHost(url, next))
        return { kind: "redirect", url: url.href, location: next.href, status: response.status };
      if (hop >= options.maxRedirects)
        throw new ToolError(`${start.href} redirected more than ${options.maxRedirects} times.`);
      url = next;
      continue;
    }
    const contentType = (response.headers.get("content-type") ?? "").trim();
    if (!response.ok) {
      const { text } = await readCapped(response, 2000, options.signal);
      const snippet = text.replace(/\s+/g, " ").trim().slice(0, 300);
      throw new ToolError(
        `${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${snippet ? `: ${snippet}` : ""}`,
      );
    }
    const type = contentType.split(";")[0]?.trim() ?? "";
    if (type !== "" && !TEXT_TYPES.test(type)) {
      await response.body?.cancel().catch(() => {});
      throw new ToolError(`${url.href} is ${type}, not a text or HTML page: WebFetch reads text only.`);
    }
    const { text, truncated } = await readCapped(
      response,
      options.maxBytes,
      options.signal,
      charsetOf(contentType),
    );
    const html = HTML_TYPES.test(type) || (type === "" && /^\s*<(!doctype html|html)/i.test(text));
    return {
      kind: "page",
      url: url.href,
      status: response.status,
      contentType: type || "unknown",
      content: html ? htmlToMarkdown(text) : text,
      truncatedBytes: truncated,
    };
  }
}

function charsetOf(contentType: string): string {
  const match = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType);
  return match?.[1] ?? "utf-8";
}

/** Reads at most `maxBytes` of the body and decodes it; the rest is never downloaded. */
async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
  charset = "utf-8",
): Promise<{ text: string; truncated: boolean }> {
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: string[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - bytes;
      if (value.byteLength >= room) {
        chunks.push(decoder.decode(value.subarray(0, room), { stream: true }));
        truncated = value.byteLength > room || !(await reader.read().then((next) => next.done));
        break;
      }
      bytes += value.byteLength;
      chunks.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  chunks.push(decoder.decode());
  return { text: chunks.join(""), truncated };
}
