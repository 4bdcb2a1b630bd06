import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../messages/index.js";
import { loadSession } from "./load-session.js";
import { SessionLog } from "./session-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A session of `turns` Read turns with ~`size`-character results and a compaction every 3 turns. */
function writeSession(turns: number, size: number): string {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-load-"));
  dirs.push(dir);
  const log = SessionLog.create(dir, { cwd: dir, model: "anthropic:m" });
  log.append({ role: "user", content: [{ type: "text", text: "read them all" }] });
  for (let t = 1; t <= turns; t++) {
    const id = `toolu_${t}`;
    const call: Message = {
      role: "assistant",
      content: [{ type: "tool_use", id, name: "Read", input: { file_path: `f${t}` } }],
      usage: {
        input_tokens: 1,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        output_tokens: 1,
      },
    };
    const result = { type: "tool_result" as const, tool_use_id: id, content: `${t}:`.padEnd(size, "x") };
    log.append(call);
    log.appendEntry({ type: "tool-start", toolUseId: id, name: "Read" });
    log.appendEntry({ type: "tool-result", result });
    log.append({ role: "user", content: [result] });
    if (t % 3 === 0)
      log.appendEntry({
        type: "compaction",
        reason: "compacted",
        before: 7,
        messages: [
          { role: "user", content: [{ type: "text", text: `summary ${t}` }] },
          call,
          { role: "user", content: [result] },
        ],
        usage: {
          input_tokens: 0,
          cache_read_input_tokens: 10,
          cache_creation_input_tokens: 0,
          output_tokens: 2,
        },
      });
  }
  log.close();
  return log.path;
}

describe("loadSession on a long session", () => {
  it("resumes from the last compaction, with every answer's usage and the first prompt, skipping what it replaced", () => {
    const path = writeSession(10, 5_000);
    const loaded = loadSession(path);
    // Compaction at turn 9: its three messages, then turn 10's call and result.
    expect(loaded.messages).toHaveLength(5);
    expect(JSON.stringify(loaded.messages[0])).toContain("summary 9");
    expect(JSON.stringify(loaded.messages[4])).toContain("10:xxx");
    expect(loaded.modelCalls).toBe(10 + 3);
    expect(loaded.usage.output_tokens).toBe(10 + 3 * 2);
    expect(loaded.usage.cache_read_input_tokens).toBe(30);
    expect(JSON.stringify(loaded.firstMessage)).toContain("read them all");
    expect(loaded.truncatedTail).toBe(false);
  });

  it("is not stopped by a damaged result that a compaction replaced, but is by one in the transcript", () => {
    const path = writeSession(4, 500);
    const lines = readFileSync(path, "utf8").split("\n");
    // Line of turn 1's tool result (before the compaction at turn 3): cut in the middle.
    const early = lines.findIndex((l) => l.startsWith('{"type":"tool-result"'));
    const damaged = [...lines];
    damaged[early] = (damaged[early] as string).slice(0, 40);
    writeFileSync(path, damaged.join("\n"));
    expect(loadSession(path).messages).toHaveLength(5);
    // The last result line (after the compaction) damaged: an error that names the line.
    const late = lines
      .map((l, i) => [l, i] as const)
      .filter(([l]) => l.startsWith('{"type":"tool-result"'))
      .at(-1)?.[1] as number;
    damaged[late] = (damaged[late] as string).slice(0, 40);
    writeFileSync(path, damaged.join("\n"));
    expect(() => loadSession(path)).toThrow(`line ${late + 1} is not valid JSON`);
  });

  it("reports a last line cut by a kill, also when the file is read in chunks", () => {
    const path = writeSession(700, 2_000);
    appendFileSync(path, '{"type":"message","message":{"role":"assistant","content":[{"type":"te');
    const loaded = loadSession(path);
    expect(loaded.truncatedTail).toBe(true);
    expect(JSON.stringify(loaded.messages.at(-1))).toContain("700:xxx");
  });
});
