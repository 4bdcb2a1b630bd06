import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Options, SDKMessage, SDKResultMessage, SDKUserMessage } from "@anthropic-ai/claude-agent-sdk";
import { onTestFinished } from "vitest";
import { type ScriptEntry, startSimulator } from "../../src/simulator/index.js";
import { providerEnv } from "../../src/simulator/provider-env.js";

/** The built command, as an app would point the SDK at it (`pathToClaudeCodeExecutable`). */
export const MITSU_BIN = join(import.meta.dirname, "..", "..", "dist", "cli", "bin.js");

/**
 * A simulator scripted with `script`, an empty workspace and home (removed when the test ends), and the SDK
 * options that run mitsu there: every provider's variables point at the simulator, so `model` picks the wire.
 */
export async function sdkWorld(script: ScriptEntry[]) {
  const sim = await startSimulator({ script });
  const root = mkdtempSync(join(tmpdir(), "mitsu-sdk-test-"));
  onTestFinished(async () => {
    await sim.close();
    rmSync(root, { recursive: true, force: true });
  });
  const cwd = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(cwd);
  mkdirSync(home);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ...providerEnv(sim.url),
  };
  let stderr = "";
  const options = (extra: Options = {}): Options => ({
    pathToClaudeCodeExecutable: MITSU_BIN,
    cwd,
    env,
    stderr: (text) => {
      stderr += text;
    },
    ...extra,
  });
  return { sim, cwd, home, env, options, stderr: () => stderr };
}

/** Every message of a query, to its end. */
export async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

export function resultsOf(messages: SDKMessage[]): SDKResultMessage[] {
  return messages.filter((m): m is SDKResultMessage => m.type === "result");
}

/** A user message as the SDK's streaming input takes it. */
export function userMessage(text: string, uuid?: string): SDKUserMessage {
  return {
    type: "user",
    message: { role: "user", content: text },
    parent_tool_use_id: null,
    ...(uuid ? { uuid: uuid as NonNullable<SDKUserMessage["uuid"]> } : {}),
  };
}

/** Streaming input the test feeds one message at a time (`push`), ended with `end`. */
export function inputQueue() {
  const waiting: Array<(value: IteratorResult<SDKUserMessage>) => void> = [];
  const queued: SDKUserMessage[] = [];
  let ended = false;
  return {
    push(message: SDKUserMessage) {
      const next = waiting.shift();
      if (next) next({ value: message, done: false });
      else queued.push(message);
    },
    end() {
      ended = true;
      for (const next of waiting.splice(0)) next({ value: undefined, done: true });
    },
    [Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
      return {
        next: () => {
          const message = queued.shift();
          if (message) return Promise.resolve({ value: message, done: false });
          if (ended) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve) => waiting.push(resolve));
        },
      };
    },
  };
}
