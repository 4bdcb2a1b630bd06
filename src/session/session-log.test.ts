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
