import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkTranscript } from "../loop/check-transcript.js";
import type { Message, ToolResultBlock } from "../messages/index.js";
import { loadSession } from "./load-session.js";
import { NOT_STARTED_MESSAGE, STATE_UNKNOWN_MESSAGE } from "./resume-messages.js";
import { resumeSession } from "./resume-session.js";
import { SESSION_FORMAT, SessionLog } from "./session-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newLog(): SessionLog {
  const dir = mkdtempSync(join(tmpdir(), "mitsu-session-"));
  dirs.push(dir);
  return SessionLog.create(dir, { cwd: "/ws", model: "anthropic:m", now: new Date("2026-01-02T03:04:05Z") });
}

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }] });

describe("SessionLog and loadSession", () => {
  it("writes a header and one line per message, and loads them back", () => {
    const log = newLog();
    log.append(user("hi"));
    log.append(assistant("hello"));
    expect(log.path).toMatch(/2026-01-02T03-04-05-[0-9a-f]{8}\.jsonl$/);
    const loaded = loadSession(log.path);
    expect(loaded.header).toEqual(log.header);
    expect(loaded.messages).toEqual([user("hi"), assistant("hello")]);
    expect(loaded.truncatedTail).toBe(false);
  });

  it("a line cut by a kill is dropped, and appending after reopening leaves a file that loads", () => {
    // Regression: the reopened log appended after the cut bytes, so the next message shared their line and the
    // file could never be loaded again ("line 3 is not valid JSON").
    const log = newLog();
    log.append(user("hi"));
    appendFileSync(log.path, JSON.stringify({ type: "message", message: assistant("cut") }).slice(0, 30));
    const loaded = loadSession(log.path);
    expect(loaded.truncatedTail).toBe(true);
    expect(loaded.messages).toEqual([user("hi")]);

    log.close(); // the writer is gone (killed): its lock with it
    const reopened = SessionLog.reopen(log.path, loaded.header);
    reopened.append(user("again"));
    const again = loadSession(log.path);
    expect(again.truncatedTail).toBe(false);
    expect(again.messages).toEqual([user("hi"), user("again")]);
  });

  it("a last line whole but for its newline is kept when resumed, not cut off the file (the fault suite's find)", () => {
    // Regression: loadSession loaded the line (it parses), then reopen cut it as a torn write, so the resumed
    // transcript held a message the file no longer had, and a header alone left an empty file.
    const log = newLog();
    log.append(user("hi"));
    appendFileSync(log.path, JSON.stringify({ type: "message", message: assistant("whole") }));
    log.close();
    const resumed = resumeSession(log.path);
    resumed.log.append(user("again"));
    resumed.log.close();
    expect(resumed.history).toEqual([user("hi"), assistant("whole")]);
    expect(loadSession(log.path).messages).toEqual([user("hi"), assistant("whole"), user("again")]);

    const bare = newLog();
    bare.close();
    writeFileSync(bare.path, readFileSync(bare.path, "utf8").trimEnd());
    const fromHeader = resumeSession(bare.path);
    fromHeader.log.append(user("first"));
    fromHeader.log.close();
    expect(loadSession(bare.path).messages).toEqual([user("first")]);
  });

  it("names the file and the line of a damaged transcript instead of shortening it", () => {
    const log = newLog();
    log.append(user("hi"));
    const text = readFileSync(log.path, "utf8");
    writeFileSync(log.path, `${text}not json\n${JSON.stringify({ type: "message", message: user("x") })}\n`);
    expect(() => loadSession(log.path)).toThrow(`Session ${log.path} line 3 is not valid JSON`);
    writeFileSync(log.path, `${text}null\n`);
    expect(() => loadSession(log.path)).toThrow(`Session ${log.path} line 3 is not a JSON object`);
  });
});

describe("session format versions", () => {
  it("writes format 3; a newer format is refused with a message that says so", () => {
    const log = newLog();
    expect(log.header.version).toBe(SESSION_FORMAT);
    expect(SESSION_FORMAT).toBe(3);
    const text = readFileSync(log.path, "utf8");
    writeFileSync(log.path, text.replace('"version":3', '"version":4'));
    expect(() => loadSession(log.path)).toThrow(
      "This session was written by a newer mitsu (format 4); this mitsu reads up to format 3",
    );
  });

  it("format 3 writes a tool result once: the message line refers to its tool-result line, and loads whole", () => {
    const log = newLog();
    const big = "x".repeat(100_000);
    const results: ToolResultBlock[] = [
      { type: "tool_result", tool_use_id: "a", content: big },
      { type: "tool_result", tool_use_id: "b", content: "small", is_error: true },
    ];
    log.append(user("go"));
    log.append({
      role: "assistant",
      content: [
        { type: "tool_use", id: "a", name: "Read", input: {} },
        { type: "tool_use", id: "b", name: "Bash", input: {} },
      ],
    });
    for (const result of results) log.appendEntry({ type: "tool-result", result });
    // A result that differs from what was logged (a hook added context) is written whole.
    const sent: Message = {
      role: "user",
      content: [
        results[0]!,
        { ...results[1]!, content: "small\n[hook] note" },
        { type: "text", text: "after" },
      ],
    };
    log.append(sent);
    const size = statSync(log.path).size;
    expect(size).toBeLessThan(big.length * 1.1);
    const lines = readFileSync(log.path, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.at(-1).message.content[0]).toEqual({ type: "tool_result", tool_use_id: "a", logged: true });
    expect(lines.at(-1).message.content[1].content).toBe("small\n[hook] note");
    expect(loadSession(log.path).messages.at(-1)).toEqual(sent);
    // A reference with no tool-result line before it is a damaged file, named as such.
    const text = readFileSync(log.path, "utf8").split("\n");
    const cut = [...text.slice(0, 3), ...text.slice(5)].join("\n");
    writeFileSync(log.path, cut);
    expect(() => loadSession(log.path)).toThrow(
      `Session ${log.path} line 4 refers to the result of a, which no tool-result line since the previous message holds`,
    );
    // In a format-2 file a reference is not a thing.
    writeFileSync(log.path, text.join("\n").replace('"version":3', '"version":2'));
    expect(() => loadSession(log.path)).toThrow(
      "refers to a logged tool result, which format 2 does not have",
    );
  });

  it("format 3 refers to a logged result that the request gave a cache breakpoint, and restores the breakpoint", () => {
    const log = newLog();
    const result: ToolResultBlock = { type: "tool_result", tool_use_id: "a", content: "x".repeat(10_000) };
    log.append(user("go"));
    log.append({ role: "assistant", content: [{ type: "tool_use", id: "a", name: "Read", input: {} }] });
    log.appendEntry({ type: "tool-result", result });
    const sent: Message = { role: "user", content: [{ ...result, cache_control: { type: "ephemeral" } }] };
    log.append(sent);
    const last = JSON.parse(readFileSync(log.path, "utf8").trim().split("\n").at(-1)!);
    expect(last.message.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "a",
      logged: true,
      cache_control: { type: "ephemeral" },
    });
    expect(loadSession(log.path).messages.at(-1)).toEqual(sent);
  });

  it("reads a format-1 file, and appends only message lines to it", () => {
    const log = newLog();
    const v1 = readFileSync(log.path, "utf8").replace('"version":3', '"version":1');
    writeFileSync(log.path, `${v1}${JSON.stringify({ type: "message", message: user("old") })}\n`);
    const loaded = loadSession(log.path);
    expect(loaded.header.version).toBe(1);
    expect(loaded.messages).toEqual([user("old")]);
    log.close(); // the writer is gone: its lock with it
    const reopened = SessionLog.reopen(log.path, loaded.header);
    reopened.appendEntry({ type: "tool-start", toolUseId: "t1", name: "Bash" });
    reopened.append(assistant("new"));
    expect(loadSession(log.path).messages).toEqual([user("old"), assistant("new")]);
    // A format-1 file cannot hold format-2 lines: a line of a newer kind is an error there.
    appendFileSync(log.path, `${JSON.stringify({ type: "tool-start", toolUseId: "t", name: "x" })}\n`);
    expect(() => loadSession(log.path)).toThrow(
      'line 4 has the type "tool-start", which format 1 does not have',
    );
  });

  it("a compaction line replaces the transcript; the messages after it extend the new one", () => {
    const log = newLog();
    log.append(user("a"));
    log.append(assistant("b"));
    log.appendEntry({ type: "compaction", reason: "compacted", before: 2, messages: [user("summary")] });
    log.append(assistant("c"));
    log.appendEntry({ type: "subagent", toolUseId: "toolu_1", path: "child.jsonl" });
    const loaded = loadSession(log.path);
    expect(loaded.messages).toEqual([user("summary"), assistant("c")]);
    expect(loaded.subagents).toEqual([{ toolUseId: "toolu_1", path: "child.jsonl" }]);
  });
});

describe("resumeSession: the pending calls of a killed session", () => {
  const call = (id: string): Message => ({
    role: "assistant",
    content: [{ type: "tool_use", id, name: "Write", input: {} }],
  });
  const calls: Message = {
    role: "assistant",
    content: [
      { type: "tool_use", id: "done", name: "Write", input: {} },
      { type: "tool_use", id: "running", name: "Bash", input: {} },
      { type: "tool_use", id: "waiting", name: "Edit", input: {} },
    ],
  };

  it("answers a finished call with its logged result, a started one as state unknown, one never started as not run", () => {
    const log = newLog();
    log.append(user("go"));
    log.append(calls);
    log.appendEntry({ type: "tool-start", toolUseId: "done", name: "Write" });
    log.appendEntry({ type: "tool-start", toolUseId: "running", name: "Bash" });
    log.appendEntry({
      type: "tool-result",
      result: { type: "tool_result", tool_use_id: "done", content: "Wrote a.txt" },
    });
    log.close(); // killed: its lock is gone with it
    const resumed = resumeSession(log.path);
    const answer = resumed.history.at(-1);
    expect(answer).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "done", content: "Wrote a.txt" },
        { type: "tool_result", tool_use_id: "running", content: STATE_UNKNOWN_MESSAGE, is_error: true },
        { type: "tool_result", tool_use_id: "waiting", content: NOT_STARTED_MESSAGE, is_error: true },
      ],
    });
    expect(checkTranscript(resumed.history)).toEqual([]);
    // The answers are in the file too: loading it again gives the same transcript, with nothing pending.
    expect(loadSession(log.path).messages).toEqual(resumed.history);
    resumed.log.close();
    expect(resumeSession(log.path).history).toEqual(resumed.history);
  });

  it("in a format-1 file (no starts recorded) a pending call is state unknown, never 'did not run'", () => {
    const log = newLog();
    const v1 = readFileSync(log.path, "utf8").replace('"version":3', '"version":1');
    writeFileSync(log.path, v1);
    log.append(user("go"));
    log.append(call("x"));
    log.close();
    const resumed = resumeSession(log.path);
    expect(resumed.history.at(-1)?.content).toEqual([
      { type: "tool_result", tool_use_id: "x", content: STATE_UNKNOWN_MESSAGE, is_error: true },
    ]);
  });
});

describe("format-2 lines are checked like messages", () => {
  it("names what is wrong with a tool-result, a compaction or a subagent line", () => {
    const cases: Array<[unknown, string]> = [
      [{ type: "tool-start", toolUseId: 1 }, 'is a tool-start line without a string "toolUseId" and "name"'],
      [
        { type: "tool-result", result: { type: "text", text: "x" } },
        "is a tool-result line without a tool_result",
      ],
      [
        { type: "compaction", reason: "compacted", before: 2, messages: [{ role: "system", content: [] }] },
        'is a compaction line whose messages[0] is a message whose "role" is neither',
      ],
      // A file from elsewhere must not send a resume to any file on the disk.
      [{ type: "subagent", toolUseId: "t", path: "../../.ssh/id_rsa.jsonl" }, "is not a session file name"],
      [{ type: "subagent", toolUseId: "t", path: "/etc/passwd" }, "is not a session file name"],
    ];
    for (const [line, message] of cases) {
      const log = newLog();
      appendFileSync(log.path, `${JSON.stringify(line)}\n`);
      expect(() => loadSession(log.path)).toThrow(message);
    }
  });
});
