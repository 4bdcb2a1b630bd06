import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { ContentBlock, Message, ToolDefinition, UserMessage } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import { findBreakpoints } from "./cache-breakpoints.js";
import { cacheKeyOf } from "./canonical-json.js";
import { type ContextWarning, createContext } from "./create-context.js";
import { isReminderBlock } from "./reminder-engine.js";
import { sizeBreakdown } from "./size-breakdown.js";

/**
 * A small model of Anthropic's prompt cache, for this folder's tests (the simulator has the
 * full one): the prompt is the sequence of blocks tools → system → messages; an entry is the hash of
 * the marker-free content up to a block; a request writes an entry at each `cache_control` marker and
 * reads the longest entry found at a marker or up to 20 blocks before one.
 */
class AnthropicCacheModel {
  readonly #entries = new Set<string>();

  /** Sends a request; returns how many blocks (and characters) were read from the cache. */
  send(request: ModelRequest): { blocks: number; readBlocks: number; chars: number; readChars: number } {
    const parts: Array<{ key: string; marked: boolean }> = [
      ...request.tools.map((t) => ({ key: `tool:${cacheKeyOf(t)}`, marked: t.cache_control !== undefined })),
      ...request.system.map((b) => ({
        key: `system:${cacheKeyOf(b)}`,
        marked: b.cache_control !== undefined,
      })),
      ...request.messages.flatMap((m, i) =>
        m.content.map((b, j) => ({
          key: `${i}:${j === 0 ? m.role : ""}:${cacheKeyOf(b)}`,
          marked: "cache_control" in b && b.cache_control !== undefined,
        })),
      ),
    ];
    const hashes: string[] = [];
    const ends: number[] = [];
    let hash = "";
    let chars = 0;
    for (const part of parts) {
      hash = createHash("sha256").update(hash).update(part.key).digest("hex");
      chars += part.key.length;
      hashes.push(hash);
      ends.push(chars);
    }
    const markers = parts.flatMap((p, i) => (p.marked ? [i] : []));
    let hit = -1;
    for (const marker of markers) {
      for (let k = marker; k >= Math.max(0, marker - 20); k--) {
        if (this.#entries.has(hashes[k]!)) {
          hit = Math.max(hit, k);
          break;
        }
      }
    }
    for (const marker of markers) this.#entries.add(hashes[marker]!);
    return { blocks: parts.length, readBlocks: hit + 1, chars, readChars: hit >= 0 ? ends[hit]! : 0 };
  }
}

const tools: ToolDefinition[] = ["Read", "Write", "Edit", "Bash", "Grep", "Glob"].map((name) => ({
  name,
  description: `The ${name} tool.`,
  input_schema: { type: "object", properties: { path: { type: "string" } } },
}));

function workspace(): { cwd: string; home: string } {
  const cwd = mkdtempSync(join(tmpdir(), "mitsu-cc-"));
  onTestFinished(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(join(cwd, "AGENTS.md"), "Run the tests with npm test.");
  return { cwd, home: join(cwd, "home") };
}

const texts = (m: Message) => m.content.map((b) => (b.type === "text" ? b.text : b.type));
const reminders = (m: Message) => m.content.filter(isReminderBlock).map((b) => b.text);

/** The assistant's answer for turn n: `calls` parallel Read calls, or a final text. */
function answer(n: number, calls: number): Message {
  const content: ContentBlock[] =
    calls === 0
      ? [{ type: "text", text: "All done." }]
      : Array.from({ length: calls }, (_, i) => ({
          type: "tool_use" as const,
          id: `toolu_${n}_${i}`,
          name: "Read",
          input: { path: `src/file${i}.ts` },
        }));
  return { role: "assistant", content, stop_reason: calls === 0 ? "end_turn" : "tool_use" };
}
function results(message: Message): UserMessage {
  return {
    role: "user",
    content: message.content.flatMap((b) =>
      b.type === "tool_use"
        ? [{ type: "tool_result" as const, tool_use_id: b.id, content: `contents of ${b.id}` }]
        : [],
    ),
  };
}

describe("createContext", () => {
  it("a 10-turn conversation: each request extends the previous, and the cache holds", async () => {
    const { cwd, home } = workspace();
    let clock = new Date(2025, 5, 1, 9, 0);
    const warnings: ContextWarning[] = [];
    const ctx = await createContext({
      cwd,
      home,
      model: "claude-test",
      tools,
      now: () => clock,
      skills: () => "Available skills:\n- commit: Commit the staged work",
      nudges: [{ toolName: "Grep", afterTurns: 4 }],
      remindEvery: 5,
      onWarning: (w) => warnings.push(w),
      env: { SHELL: "/bin/bash" },
      platform: "linux",
    });
    const cache = new AnthropicCacheModel();
    let history: Message[] = [{ role: "user", content: [{ type: "text", text: "Fix the failing test" }] }];
    const sent: ModelRequest[] = [];
    for (let turn = 1; turn <= 10; turn++) {
      if (turn === 6) {
        writeFileSync(join(cwd, "AGENTS.md"), "Run the tests with npm run test:unit.");
        clock = new Date(2025, 5, 2, 0, 5);
      }
      const request: ModelRequest = {
        model: "claude-test",
        system: ctx.system,
        tools,
        messages: history,
        maxTokens: 4096,
      };
      const prepared = await ctx.prepareRequest(request, { turn });
      sent.push(prepared);
      expect(findBreakpoints(prepared).length).toBeLessThanOrEqual(4);
      const usage = cache.send(prepared);
      if (turn > 1) {
        // Everything the previous request sent is read back from the cache.
        expect(usage.readBlocks).toBeGreaterThanOrEqual(blocksOf(sent[turn - 2]!));
      }
      // Turn 3 answers with 12 parallel calls: 24 new blocks, past the 20-block lookback.
      const reply = answer(turn, turn === 10 ? 0 : turn === 3 ? 12 : 1);
      history = [...prepared.messages, reply];
      if (turn < 10) history.push(results(reply));
    }

    expect(ctx.diagnostics).toHaveLength(9);
    expect(ctx.diagnostics.every((d) => d.ok)).toBe(true);
    expect(warnings).toEqual([]);
    // The system prompt is the one built at start, every turn (markers aside), and was not mutated.
    const plain = (r: ModelRequest) => JSON.stringify(r.system.map(({ cache_control: _, ...b }) => b));
    expect(new Set(sent.map(plain))).toEqual(new Set([JSON.stringify(ctx.system)]));
    expect(ctx.system.some((b) => b.cache_control)).toBe(false);

    const first = sent[0]!.messages[0]!;
    expect(reminders(first).map((r) => r.split("\n")[1])).toEqual([
      expect.stringMatching(/^Instructions for this project follow/),
      "Available skills:",
    ]);
    expect(texts(first).at(-1)).toBe("Fix the failing test");

    // Turn 2's user message carries a tool result first, then nothing new to remind.
    const second = sent[1]!.messages.at(-1)!;
    expect(second.content[0]!.type).toBe("tool_result");
    expect(reminders(second)).toEqual([]);

    // Turn 5: the Grep nudge (4 turns without it); turn 6: instructions and the date changed on disk;
    // the unchanged skills list is repeated every 5 rounds (turns 1 and 6).
    const at = (turn: number) => reminders(sent[turn - 1]!.messages.at(-1)!).join("\n");
    expect(at(5)).toContain("The Grep tool has not been used");
    expect(at(6)).toContain("npm run test:unit");
    expect(at(6)).toContain("Today's date is now 2025-06-02");
    expect(at(6)).toContain("Available skills:");
    expect(at(7)).toBe("");
    expect(at(10)).toContain("The Grep tool has not been used");

    // Stored as sent: the first user message still has its reminders in the last request.
    expect(reminders(sent[9]!.messages[0]!)).toEqual(reminders(first));
    expect(ctx.instructions()?.files.map((f) => f.content)).toEqual([
      "Run the tests with npm run test:unit.",
    ]);
  });

  it("needs the older-message marker: a single sliding marker misses after a turn of many blocks", () => {
    const cache = new AnthropicCacheModel();
    const marked = { type: "ephemeral" as const };
    const base = {
      model: "m",
      system: [{ type: "text" as const, text: "core", cache_control: marked }],
      tools,
      maxTokens: 1,
    };
    const u0: Message = { role: "user", content: [{ type: "text", text: "go", cache_control: marked }] };
    cache.send({ ...base, messages: [u0] });
    const reply = answer(1, 12);
    const tail = results(reply);
    tail.content[11] = { ...tail.content[11]!, cache_control: marked } as ContentBlock;
    const unmarked: Message = { role: "user", content: [{ type: "text", text: "go" }] };
    // Only the tail marker: the previous entry is 24 blocks back, past the lookback; only system is read.
    expect(cache.send({ ...base, messages: [unmarked, reply, tail] }).readBlocks).toBe(tools.length + 1);
    // With the previous tail still marked, the whole previous prompt is read.
    const again = new AnthropicCacheModel();
    again.send({ ...base, messages: [u0] });
    expect(again.send({ ...base, messages: [u0, reply, tail] }).readBlocks).toBe(tools.length + 2);
  });

  it("does not re-add reminders when the same turn is prepared again, stored or not", async () => {
    const { cwd, home } = workspace();
    const ctx = await createContext({ cwd, home, model: "m", tools, skills: () => "skills list" });
    const raw: Message[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    const request = (messages: Message[]): ModelRequest => ({
      model: "m",
      system: ctx.system,
      tools,
      messages,
      maxTokens: 10,
    });
    const once = await ctx.prepareRequest(request(raw), { turn: 1 });
    const stored = await ctx.prepareRequest(request(once.messages), { turn: 1 });
    const retried = await ctx.prepareRequest(request(raw), { turn: 1 });
    expect(reminders(once.messages[0]!)).toHaveLength(2);
    expect(stored.messages).toEqual(once.messages);
    expect(retried.messages).toEqual(once.messages);
    expect(ctx.diagnostics.map((d) => d.ok)).toEqual([true, true]);
  });

  it("a given system prompt is used as it is, and a day passed since its systemDate is reminded", async () => {
    const { cwd, home } = workspace();
    const system = [{ type: "text" as const, text: "the system prompt of a resumed session" }];
    const ctx = await createContext({
      cwd,
      home,
      model: "m",
      tools,
      system,
      systemDate: new Date(2025, 5, 1, 23, 0),
      now: () => new Date(2025, 5, 3, 9, 0),
    });
    expect(ctx.system).toBe(system);
    const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "go on" }] }];
    const prepared = await ctx.prepareRequest(
      { model: "m", system, tools, messages, maxTokens: 10 },
      { turn: 1 },
    );
    expect(reminders(prepared.messages[0]!).join("\n")).toContain("Today's date is now 2025-06-03");
  });

  it("warns, naming the block, when the prefix breaks", async () => {
    const { cwd, home } = workspace();
    const warnings: ContextWarning[] = [];
    const ctx = await createContext({ cwd, home, model: "m", tools, onWarning: (w) => warnings.push(w) });
    const first = await ctx.prepareRequest(
      {
        model: "m",
        system: ctx.system,
        tools,
        messages: [{ role: "user", content: [{ type: "text", text: "a" }] }],
        maxTokens: 10,
      },
      { turn: 1 },
    );
    const system = ctx.system.map((b, i) => (i === 2 ? { ...b, text: `${b.text}\nTime: 09:01` } : b));
    await ctx.prepareRequest(
      {
        ...first,
        system,
        messages: [...first.messages, answer(1, 0), { role: "user", content: [{ type: "text", text: "b" }] }],
      },
      { turn: 2 },
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      code: "prefix-broken",
      turn: 2,
      report: { ok: false, difference: "system[2] changed" },
    });
  });

  it("reports a failing reminder source as a warning and still prepares the request", async () => {
    const { cwd, home } = workspace();
    const warnings: ContextWarning[] = [];
    const ctx = await createContext({
      cwd,
      home,
      model: "m",
      tools,
      instructions: false,
      sources: [{ name: "flaky", collect: () => Promise.reject(new Error("disk gone")) }],
      onWarning: (w) => warnings.push(w),
    });
    const out = await ctx.prepareRequest(
      {
        model: "m",
        system: ctx.system,
        tools,
        messages: [{ role: "user", content: [{ type: "text", text: "a" }] }],
        maxTokens: 10,
      },
      { turn: 1 },
    );
    expect(texts(out.messages[0]!)).toEqual(["a"]);
    expect(warnings.map((w) => w.message)).toEqual([
      'Reminder source "flaky" failed and was skipped: disk gone',
    ]);
  });

  it("feeds mitsu inspect: a size breakdown with reminders on rows of their own", async () => {
    const { cwd, home } = workspace();
    utimesSync(join(cwd, "AGENTS.md"), new Date(2020, 0, 1), new Date(2020, 0, 1));
    const ctx = await createContext({ cwd, home, model: "m", tools });
    const request = await ctx.prepareRequest(
      {
        model: "m",
        system: ctx.system,
        tools,
        messages: [{ role: "user", content: [{ type: "text", text: "hello" }] }],
        maxTokens: 10,
      },
      { turn: 1 },
    );
    const size = sizeBreakdown(request);
    expect(size.rows.map((r) => r.part)).toEqual([
      "system[0]",
      "system[1]",
      "system[2]",
      ...tools.map((t, i) => `tools[${i}] ${t.name}`),
      "messages[0].content[0] reminder",
      "messages[0] user",
    ]);
    const reminderRow = size.rows.find((r) => r.kind === "reminder")!;
    expect(reminderRow.chars).toBe(JSON.stringify(request.messages[0]!.content[0]).length);
    expect(reminderRow.tokens).toBe(Math.ceil(reminderRow.chars / 4));
    expect(size.rows.filter((r) => r.breakpoint).map((r) => r.part)).toEqual([
      "system[2]",
      "tools[5] Glob",
      "messages[0] user",
    ]);
    expect(size.totals.chars).toBe(size.rows.reduce((n, r) => n + r.chars, 0));
    expect(size.text).toContain("characters / 4");
    expect(size.text).toMatch(/messages\[0\]\.content\[0\] reminder\s+\d+\s+\d+/);
  });
});

function blocksOf(r: ModelRequest): number {
  return r.tools.length + r.system.length + r.messages.reduce((n, m) => n + m.content.length, 0);
}
