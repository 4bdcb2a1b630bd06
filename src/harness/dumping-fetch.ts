import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SECRET_HEADERS = /^(x-api-key|authorization|x-goog-api-key|api-key)$/i;

/**
 * Wraps `fetch` so that every request body and every response body (byte for byte, as streamed) is written
 * to `dir`: `0001-request.json` (url, method, headers with secrets redacted, body) and `0001-response.txt`
 * (status line, headers, then the raw body). The response reaches the caller unchanged and unbuffered.
 */
export function createDumpingFetch(
  dir: string,
  inner: typeof fetch = fetch,
): typeof fetch & { flush(): Promise<void> } {
  mkdirSync(dir, { recursive: true });
  let count = 0;
  /** Response bodies still being written. */
  const pending = new Set<Promise<void>>();
  const dumping = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
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
