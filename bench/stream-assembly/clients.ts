/**
 * One function per (library, mode): each makes one request for a tool_use of `size` characters and
 * returns the length of the assembled `content`, so every client provably did the whole job.
 * `overBudget()` lets a quadratic client stop early; it then returns -1.
 */

import { createAnthropic } from "@ai-sdk/anthropic";
import Anthropic from "@anthropic-ai/sdk";
import { jsonSchema, parsePartialJson, streamText } from "ai";
import { createAnthropicProvider } from "../../src/providers/anthropic/anthropic-provider.js";
import type { ModelRequest } from "../../src/providers/provider.js";

export interface ClientRun {
  url: string;
  size: number;
  overBudget: () => boolean;
}

const MODEL = "claude-sonnet-5-5";
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const schema: { type: "object"; properties: Record<string, { type: string }>; required: string[] } = {
  type: "object",
  properties: { file_path: { type: "string" }, content: { type: "string" } },
  required: ["file_path", "content"],
};
const prompt = (size: number) => `Write the file. size=${size}`;

function contentLength(input: unknown): number {
  const content = (input as { content?: unknown } | undefined)?.content;
  if (typeof content !== "string") throw new Error("the assembled input has no content string");
  return content.length;
}

/** The floor: SSE split by hand, one JSON.parse per event, concatenation, one JSON.parse of the input. */
export async function floor({ url, size }: ClientRun): Promise<number> {
  const response = await fetch(`${url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "bench", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: 128000,
      stream: true,
      tools: [
        {
          name: "write_file",
          description: "Write a file",
          input_schema: schema,
          eager_input_streaming: true,
        },
      ],
      messages: [{ role: "user", content: prompt(size) }],
    }),
  });
  if (!response.body) throw new Error("no body");
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let pending = "";
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let start = 0;
    let end = pending.indexOf("\n\n", start);
    while (end !== -1) {
      const data = pending.indexOf("data: ", start);
      if (data !== -1 && data < end) {
        const event = JSON.parse(pending.slice(data + 6, end)) as {
          delta?: { type: string; partial_json?: string };
        };
        if (event.delta?.type === "input_json_delta") parts.push(event.delta.partial_json ?? "");
      }
      start = end + 2;
      end = pending.indexOf("\n\n", start);
    }
    pending = pending.slice(start);
  }
  return contentLength(JSON.parse(parts.join("")));
}

function mitsuRequest(size: number): ModelRequest {
  return {
    model: MODEL,
    maxTokens: 128000,
    system: [],
    tools: [
      { name: "write_file", description: "Write a file", input_schema: schema, eager_input_streaming: true },
    ],
    messages: [{ role: "user", content: [{ type: "text", text: prompt(size) }] }],
  };
}

async function mitsu({ url, size }: ClientRun, live: boolean): Promise<number> {
  const provider = createAnthropicProvider({ apiKey: "bench", baseURL: url });
  let shown = 0;
  for await (const event of provider.stream(mitsuRequest(size), { liveInput: live })) {
    if (event.type === "tool-input-delta") {
      for (const chunk of event.strings) if (chunk.path[0] === "content") shown += chunk.text.length;
    } else if (event.type === "message-end") {
      const block = event.message.content.find((b) => b.type === "tool_use");
      if (block?.type !== "tool_use") throw new Error(`no tool_use: ${JSON.stringify(event.message.error)}`);
      const length = contentLength(block.input);
      if (live && shown !== length) throw new Error(`live view showed ${shown} of ${length} characters`);
      return length;
    }
  }
  throw new Error("stream ended without message-end");
}

export const mitsuLive = (run: ClientRun) => mitsu(run, true);
export const mitsuFinal = (run: ClientRun) => mitsu(run, false);

async function anthropicSdk({ url, size, overBudget }: ClientRun, live: boolean): Promise<number> {
  const client = new Anthropic({ apiKey: "bench", baseURL: url, maxRetries: 0 });
  const stream = client.messages.stream({
    model: MODEL,
    max_tokens: 128000,
    tools: [{ name: "write_file", description: "Write a file", input_schema: schema }],
    messages: [{ role: "user", content: prompt(size) }],
  });
  let stopped = false;
  // Stopped over budget, the stream's finalMessage() may never settle (the process then exited with code 13,
  // "unsettled top-level await", and ended the whole bench): the stop answers by itself.
  let stop: (() => void) | undefined;
  const stoppedEarly = new Promise<number>((resolve) => {
    stop = () => resolve(-1);
  });
  if (live) {
    let calls = 0;
    stream.on("inputJson", (_delta, snapshot) => {
      // What a UI does: show the partial input's content as it grows.
      contentLengthOrZero(snapshot);
      if (++calls % 32 === 0 && overBudget()) {
        stopped = true;
        stream.abort();
        stop?.();
      }
    });
  }
  try {
    const finished = stream.finalMessage().then((message) => {
      const block = message.content.find((b) => b.type === "tool_use");
      return contentLength(block?.type === "tool_use" ? block.input : undefined);
    });
    return await Promise.race([finished, stoppedEarly]);
  } catch (error) {
    if (stopped) return -1;
    throw error;
  }
}

function contentLengthOrZero(value: unknown): number {
  const content = (value as { content?: unknown } | undefined)?.content;
  return typeof content === "string" ? content.length : 0;
}

export const anthropicSdkLive = (run: ClientRun) => anthropicSdk(run, true);
export const anthropicSdkFinal = (run: ClientRun) => anthropicSdk(run, false);

async function aiSdk({ url, size, overBudget }: ClientRun, live: boolean): Promise<number> {
  const anthropic = createAnthropic({ apiKey: "bench", baseURL: `${url}/v1` });
  const abort = new AbortController();
  const result = streamText({
    model: anthropic(MODEL),
    maxOutputTokens: 128000,
    prompt: prompt(size),
    tools: { write_file: { description: "Write a file", inputSchema: jsonSchema(schema) } },
    abortSignal: abort.signal,
  });
  let text = "";
  let deltas = 0;
  try {
    for await (const part of result.fullStream) {
      if (live && part.type === "tool-input-delta") {
        text += part.delta;
        // What the AI SDK's UI layer does with a partial tool input.
        contentLengthOrZero((await parsePartialJson(text)).value);
        if (++deltas % 32 === 0 && overBudget()) {
          abort.abort();
          return -1;
        }
      } else if (part.type === "tool-call") {
        return contentLength(part.input);
      } else if (part.type === "error") {
        throw part.error;
      }
    }
  } catch (error) {
    if (abort.signal.aborted) return -1;
    throw error;
  }
  throw new Error("ai: no tool-call part");
}

export const aiLive = (run: ClientRun) => aiSdk(run, true);
export const aiFinal = (run: ClientRun) => aiSdk(run, false);
