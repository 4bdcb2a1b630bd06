import { writeFileSync } from "node:fs";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import type { ScriptEntry } from "../../src/simulator/index.js";
import { collect, sdkWorld, userMessage } from "../sdk/sdk-harness.js";
import { runMitsu } from "./cli-harness.js";

// `mitsu -p --output-format json / stream-json` prints what Claude Code prints today: the Agent SDK's message
// types (sdk.d.ts: SDKSystemMessage init, SDKAssistantMessage, SDKUserMessage, SDKResultMessage), the same shapes
// the SDK front-end sends. Print mode used to print an older shape (no uuid, no modelUsage, no terminal_reason,
// one assistant message for several blocks, `stop_reason` holding mitsu's own reasons).

const script = (): ScriptEntry[] => [
  {
    content: [
      { type: "text", text: "Reading it." },
      { type: "tool_use", name: "Read", input: { file_path: "notes.txt" } },
    ],
  },
  { content: [{ type: "text", text: "It says hello." }] },
];

type Message = Record<string, unknown> & {
  type: string;
  subtype?: string;
  message?: Record<string, unknown>;
};

/** Each message's kind with its keys (and its inner message's keys), in order. */
function shapes(messages: readonly Message[]): string[] {
  return messages.map((m) => {
    const inner = m.message ? ` message{${Object.keys(m.message).sort().join(",")}}` : "";
    return `${m.type}${m.subtype ? `/${m.subtype}` : ""} {${Object.keys(m).sort().join(",")}}${inner}`;
  });
}

/**
 * "read notes.txt" (the file says hello) sent through the SDK front-end, and as `mitsu -p <flags>`: the messages the
 * SDK received, and what mitsu printed.
 */
async function bothWays(flags: string[]) {
  const world = await sdkWorld([...script(), ...script()]);
  writeFileSync(`${world.cwd}/notes.txt`, "hello\n");
  async function* one() {
    yield userMessage("read notes.txt");
  }
  const fromSdk = (await collect(query({ prompt: one(), options: world.options() }))) as unknown as Message[];
  const out = await runMitsu(["-p", ...flags, "read notes.txt"], {
    cwd: world.cwd,
    home: world.home,
    env: world.env,
  });
  return { fromSdk, out };
}

describe("print mode's json and stream-json are the SDK's message shapes", () => {
  it("stream-json prints the same messages, with the same keys, as the SDK front-end", async () => {
    const { fromSdk, out } = await bothWays(["--output-format", "stream-json", "--verbose"]);
    expect(out.code, out.stderr).toBe(0);
    const printed = out.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Message);
    expect(shapes(printed)).toEqual(shapes(fromSdk));
    // One assistant message per content block, each with the message id and a uuid of its own.
    const assistants = printed.filter((m) => m.type === "assistant");
    expect(assistants).toHaveLength(3);
    expect(assistants[0]!.message!.id).toBe(assistants[1]!.message!.id);
    expect(new Set(printed.map((m) => m.uuid)).size).toBe(printed.length);
    const result = printed.at(-1)!;
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      result: "It says hello.",
      terminal_reason: "completed",
      stop_reason: "end_turn",
      permission_denials: [],
    });
    expect(Object.keys(result.modelUsage as object)).toEqual(["claude-sonnet-5-5"]);
  });

  it("json prints the SDK's result message alone", async () => {
    const { fromSdk, out } = await bothWays(["--output-format", "json"]);
    expect(out.code, out.stderr).toBe(0);
    const result = JSON.parse(out.stdout) as Message;
    expect(shapes([result])).toEqual(shapes(fromSdk.filter((m) => m.type === "result")));
    expect(result.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.num_turns).toBe(2);
  });
});
