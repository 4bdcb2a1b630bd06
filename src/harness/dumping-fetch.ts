import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isSecretHeader, redactedValue } from "../providers/http/redact-headers.js";

/**
 * Wraps `fetch` so that every request body and every response body (byte for byte, as streamed) is written
 * to `dir`: `0001-request.json` (url, method, headers with secrets redacted, body) and `0001-response.txt`
 * (status line, headers with secrets redacted, then the raw body). The response reaches the caller unchanged
 * and unbuffered. Secret headers are those `isSecretHeader` names, with `secretHeaders` (the headers set in
 * models.json) among them. The files hold whole conversations: they are private to the user (0600 in 0700).
 */
export function createDumpingFetch(
  dir: string,
  inner: typeof fetch = fetch,
  secretHeaders: readonly string[] = [],
): typeof fetch & { flush(): Promise<void> } {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const shown = (key: string, value: string) =>
    isSecretHeader(key, secretHeaders) ? redactedValue(value) : value;
  let count = 0;
  /** Response bodies still being written. */
  const pending = new Set<Promise<void>>();
  const dumping = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const n = String(++count).padStart(4, "0");
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = shown(key, value);
    });
    let body: unknown = init?.body;
    // Providers send their JSON as UTF-8 bytes (postJson).
    if (body instanceof Uint8Array) body = new TextDecoder().decode(body);
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
      { mode: 0o600 },
    );
    const response = await inner(input, init);
    const file = createWriteStream(join(dir, `${n}-response.txt`), { mode: 0o600 });
    const head = [`HTTP ${response.status} ${response.statusText}`];
    response.headers.forEach((value, key) => {
      head.push(`${key}: ${shown(key, value)}`);
    });
    file.write(`${head.join("\n")}\n\n`);
    if (!response.body) {
      file.end();
      return response;
    }
    const [forCaller, forFile] = response.body.tee();
    const written = (async () => {
      try {
        for await (const chunk of forFile) file.write(chunk);
      } catch {
        // the caller aborted: what arrived is on disk
      } finally {
        await new Promise<void>((resolve) => file.end(resolve));
      }
    })();
    pending.add(written);
    void written.then(() => pending.delete(written));
    return new Response(forCaller, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return Object.assign(dumping, {
    flush: async () => {
      await Promise.all(pending);
    },
  });
}
