import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleCountTokens } from "./anthropic/handle-count-tokens.js";
import { handleMessages } from "./anthropic/handle-messages.js";
import { sendError } from "./anthropic/send-error.js";
import { CacheModel } from "./cache-model.js";
import { handleGenerateContent } from "./gemini/handle-generate-content.js";
import { ThoughtSignatures } from "./gemini/thought-signatures.js";
import { IdSource } from "./id-source.js";
import { handleChatCompletions } from "./openai-chat/handle-chat-completions.js";
import { handleResponses } from "./openai-responses/handle-responses.js";
import { PrefixCache } from "./prefix-cache.js";
import { ScriptQueue } from "./script-queue.js";
import type { Exchange, SimContext } from "./sim-context.js";
import type { LoggedRequest, Simulator, SimulatorOptions } from "./types.js";

type Handler = (ctx: SimContext, ex: Exchange) => Promise<void>;

/** Routes by method and path (query string ignored; a RegExp must match the whole path). */
const ROUTES: {
  method: string;
  path: string | RegExp;
  protocol: LoggedRequest["protocol"];
  handler: Handler;
}[] = [
  { method: "POST", path: "/v1/messages", protocol: "anthropic", handler: handleMessages },
  { method: "POST", path: "/v1/messages/count_tokens", protocol: "anthropic", handler: handleCountTokens },
  { method: "POST", path: "/v1/chat/completions", protocol: "openai-chat", handler: handleChatCompletions },
  { method: "POST", path: "/v1/responses", protocol: "openai-responses", handler: handleResponses },
  {
    method: "POST",
    path: /^\/v1beta\/models\/[^/:]+:(?:streamGenerateContent|generateContent)$/,
    protocol: "gemini",
    handler: handleGenerateContent,
  },
];

/**
 * Starts a loopback server that answers provider API requests from a script (see SimulatorOptions).
 * Every request is logged in `requests`, in arrival order, with the status and error it got.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const charsPerToken = positive(options.charsPerToken ?? 4, "charsPerToken");
  const ctx: SimContext = {
    options: {
      textChunk: positive(options.textChunk ?? 12, "textChunk"),
      inputChunk: positive(options.inputChunk ?? 64, "inputChunk"),
      delayMs: Math.max(0, options.delayMs ?? 0),
      charsPerToken,
      minCacheableTokens: options.minCacheableTokens ?? 1024,
      now,
      onMark: options.onMark ?? (() => {}),
      reportUsage: options.reportUsage ?? "honest",
      contextWindow: options.contextWindow,
    },
    queue: new ScriptQueue(options.script ?? []),
    cache: new CacheModel({ charsPerToken, minCacheableTokens: options.minCacheableTokens ?? 1024, now }),
    prefixCache: new PrefixCache({ charsPerToken, minCacheableTokens: options.minCacheableTokens ?? 1024 }),
    ids: new IdSource(),
    thoughtSignatures: new ThoughtSignatures(),
    requests: [],
  };

  const server = createServer((req, res) => {
    handle(ctx, req, res).catch((error: unknown) => {
      // A bug in the simulator itself: answer it visibly rather than hang the client.
      const message = `simulator internal error: ${error instanceof Error ? error.stack : String(error)}`;
      if (!res.headersSent) {
        res.writeHead(500, { "content-type": "text/plain", "x-should-retry": "false" });
        res.end(message);
      } else res.destroy();
      const log = ctx.requests.at(-1);
      if (log) log.error ??= message;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, options.host ?? "127.0.0.1", () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    requests: ctx.requests,
    enqueue: (...entries) => ctx.queue.enqueue(...entries),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function handle(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const method = req.method ?? "GET";
  const route = ROUTES.find(
    (r) => r.method === method && (typeof r.path === "string" ? r.path === path : r.path.test(path)),
  );

  let body: unknown;
  let bodyError: string | undefined;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch (error) {
      body = text;
      bodyError = error instanceof Error ? error.message : String(error);
    }
  }
  const log: LoggedRequest = {
    protocol: route?.protocol ?? "anthropic",
    method,
    path,
    headers: flatHeaders(req),
    body,
    status: 0,
  };
  const index = ctx.requests.push(log) - 1;
  const ex: Exchange = { req, res, log, index, bodyError };
  if (!route) {
    const message = `Not found: ${method} ${path}`;
    return sendError(ex, ctx.ids.next("req_011"), 404, "not_found_error", message);
  }
  await route.handler(ctx, ex);
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function positive(value: number, name: string): number {
  if (!(value > 0)) throw new RangeError(`simulator option ${name} must be a positive number, got ${value}`);
  return value;
}
