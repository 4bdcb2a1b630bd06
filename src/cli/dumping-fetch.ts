import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SECRET_HEADERS = /^(x-api-key|authorization|x-goog-api-key|api-key)$/i;

/**
 * Wraps `fetch` so that every request body and every response body (byte for byte, as streamed) is written
 * to `dir`: `0001-request.json` (url, method, headers with secrets redacted, body) and `0001-response.txt`
 * (status line, headers, then the raw body). The response reaches the caller unchanged and unbuffered.
 */
export function createDumpingFetch(dir: string, inner: typeof fetch = fetch): typeof fetch {
  mkdirSync(dir, { recursive: true });
  let count = 0;
  return async (input, init) => {
    const n = String(++count).padStart(4, "0");
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = SECRET_HEADERS.test(key) ? "<redacted>" : value;
    });
    let body: unknown = init?.body;
    if (typeof body === "string") {
      try {
        body = JSON.parse(body);
      } catch {
        // not JSON: keep the text
      }
    }
    writeFileSync(
      join(dir, `${n}-request.json`),
      `${JSON.stringify({ url, method: init?.method ?? "GET", headers, body }, null, 2)}\n`,
    );
    const response = await inner(input, init);
    const file = createWriteStream(join(dir, `${n}-response.txt`));
    const head = [`HTTP ${response.status} ${response.statusText}`];
    response.headers.forEach((value, key) => {
      head.push(`${key}: ${value}`);
    });
    file.write(`${head.join("\n")}\n\n`);
    if (!response.body) {
      file.end();
      return response;
    }
    const [forCaller, forFile] = response.body.tee();
    void (async () => {
      try {
        for await (const chunk of forFile) file.write(chunk);
      } catch {
        // the caller aborted: what arrived is on disk
      } finally {
        file.end();
      }
    })();
    return new Response(forCaller, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
