import { describe, expect, it } from "vitest";
import { errorHint } from "../../src/cli/render/error-hint.js";
import { createStyle } from "../../src/cli/render/style.js";
import { createTextRenderer, formatDelay, renderResult } from "../../src/cli/render/text-renderer.js";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { ToolUseBlock } from "../../src/messages/index.js";

const style = createStyle(false);

function render(
  events: AgentEvent[],
  live: string[] = [],
  extra: Partial<Parameters<typeof createTextRenderer>[0]> = {},
) {
  let out = "";
  let notices = "";
  const renderer = createTextRenderer({
    ...extra,
    write: (s) => {
      out += s;
    },
    notice: (s) => {
      notices += s;
    },
    errorHint: (e) => (e.type === "authentication_error" ? "Check the key." : undefined),
    style,
    summarize: (b) => `${b.name} ${(b.input as { file_path?: string }).file_path ?? ""}`.trim(),
    showsInputLive: (name) => live.includes(name),
  });
  for (const event of events) renderer(event);
  return { out, notices };
}

const call = (id: string, name: string, file_path: string): ToolUseBlock => ({
  type: "tool_use",
  id,
  name,
  input: { file_path },
});
const start = (block: ToolUseBlock): AgentEvent => ({
  type: "tool-call-start",
  turn: 1,
  agentPath: [],
  block,
});
const end = (block: ToolUseBlock, content: string): AgentEvent => ({
  type: "tool-call-end",
  turn: 1,
  agentPath: [],
  block,
  result: { type: "tool_result", tool_use_id: block.id, content },
  durationMs: 1,
});

describe("the text renderer", () => {
  it("a result that does not follow its own call names the call again", () => {
    const a = call("a", "Glob", "a.ts");
    const b = call("b", "Glob", "b.ts");
    const { out } = render([start(a), start(b), end(b, "bee"), end(a, "ay")]);
    expect(out).toBe(["● Glob a.ts", "● Glob b.ts", "  ⎿ bee", "● Glob a.ts", "  ⎿ ay", ""].join("\n"));
  });

  it("a single call's result follows its header once", () => {
    const a = call("a", "Glob", "a.ts");
    expect(render([start(a), end(a, "ay")]).out).toBe("● Glob a.ts\n  ⎿ ay\n");
  });

  it("a Read shows how many lines it read, not the file", () => {
    const a = call("a", "Read", "a.ts");
    const file = Array.from({ length: 120 }, (_, i) => `${String(i + 1).padStart(6)}\tline ${i + 1}`).join(
      "\n",
    );
    expect(render([start(a), end(a, file)]).out).toBe("● Read a.ts\n  ⎿ Read 120 lines\n");
    expect(render([start(a), end(a, "     1\tone")]).out).toBe("● Read a.ts\n  ⎿ Read 1 line\n");
  });

  it("indents every line of a live input under its call, and the call needs no second header", () => {
    const w = call("w", "Write", "f.txt");
    const { out } = render(
      [
        { type: "tool-input-start", turn: 1, id: "0", toolUseId: "w", name: "Write" },
        { type: "tool-input-delta", turn: 1, id: "0", strings: [{ path: ["content"], text: "one\ntw" }] },
        { type: "tool-input-delta", turn: 1, id: "0", strings: [{ path: ["content"], text: "o\n" }] },
        { type: "tool-input-delta", turn: 1, id: "0", strings: [{ path: ["content"], text: "three" }] },
        { type: "tool-input-end", turn: 1, id: "0", block: w },
        start(w),
        end(w, "Created f.txt"),
      ] as AgentEvent[],
      ["Write"],
    );
    expect(out).toBe(
      ["● Write", "  content: one", "    two", "    three", "  ⎿ Created f.txt", ""].join("\n"),
    );
  });

  it("sends retries, warnings and the end of a failed run to the notice writer, with the hint", () => {
    const { out, notices } = render([
      { type: "text-delta", turn: 1, id: "0", delta: "partial" },
      { type: "retry", turn: 1, attempt: 1, delayMs: 2000, reason: "overloaded" },
      {
        type: "agent-end",
        reason: "error",
        messages: [],
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    ] as AgentEvent[]);
    expect(out).toBe("partial\n");
    expect(notices).toBe(
      "↻ overloaded; retrying in 2 s (attempt 1)\n✖ invalid x-api-key\n  Check the key.\n",
    );
  });

  it("says that it is waiting while the provider sends nothing (stream-stalled), on the notice writer", () => {
    const { out, notices } = render([
      { type: "stream-stalled", turn: 1, agentPath: [], silentMs: 15_000, timeoutMs: 90_000 },
    ] as AgentEvent[]);
    expect(out).toBe("");
    expect(notices).toBe("… no data from the provider for 15 s; waiting (gives up at 90 s)\n");
  });

  it("an idle timeout gets a hint about slow servers, not about reachability", () => {
    const idle = {
      type: "network_error",
      message: "The provider sent nothing for 90 s (idle timeout); the connection was dropped",
    };
    expect(errorHint(idle, "anthropic")).toMatch(/stopped sending.*idleTimeoutMs/);
    expect(errorHint({ type: "network_error", message: "fetch failed (ECONNREFUSED)" }, "anthropic")).toMatch(
      /reachable/,
    );
  });

  it("writes delays in ms under a second and in seconds above", () => {
    expect(formatDelay(177.4)).toBe("177 ms");
    expect(formatDelay(2000)).toBe("2 s");
    expect(formatDelay(2890)).toBe("2.9 s");
  });
});

describe("a sub-agent's events", () => {
  it("show as its tool calls under the Task call, not as the parent's text; the Task result names its call", () => {
    const task = call("task", "Task", "");
    const read = call("r1", "Read", "notes.txt");
    const child = ["task"];
    const { out } = render([
      start(task),
      { type: "text-delta", turn: 1, agentPath: child, id: "0", delta: "child thinking aloud" },
      { type: "tool-call-start", turn: 1, agentPath: child, block: read },
      { ...end(read, "remember the milk"), agentPath: child },
      { type: "tool-call-start", turn: 1, agentPath: [...child, "t2"], block: call("r2", "Grep", "") },
      end(task, "It says: remember the milk."),
    ]);
    expect(out).toBe(
      ["● Task", "  ↳ Read notes.txt", "    ↳ Grep", "● Task", "  ⎿ It says: remember the milk.", ""].join(
        "\n",
      ),
    );
  });
});

describe("a command's output on screen", () => {
  const plain = createStyle(false);
  const output = (text: string, is_error?: boolean) => ({
    type: "tool_result" as const,
    tool_use_id: "t",
    content: text,
    ...(is_error ? { is_error } : {}),
  });

  it("is shown from its end, where a test run says how it went, without a clean exit's note", () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(renderResult(output(`${lines}\n\n[Exit code: 0]`), plain, 3, true)).toBe(
      "  ⎿ … (7 lines above)\n    line 8\n    line 9\n    line 10\n",
    );
  });

  it("keeps a failing exit code in view", () => {
    expect(renderResult(output("boom\n\n[Exit code: 2]"), plain, 4, true)).toBe(
      "  ⎿ boom\n    \n    [Exit code: 2]\n",
    );
  });

  it("other results are shown from their start", () => {
    expect(renderResult(output("a\nb\nc\nd"), plain, 2)).toBe("  ⎿ a\n    b\n    … (+2 lines)\n");
  });
});

describe("a running call's progress", () => {
  const ERASE = "\r\u001b[2K";
  const b = call("b", "Bash", "");
  const progress = (text: string, id = "b"): AgentEvent => ({
    type: "tool-progress",
    agentPath: [],
    turn: 1,
    toolUseId: id,
    text,
  });

  it("at a terminal: one status line under the call with its last line, erased before the result", () => {
    const { out } = render(
      [
        start(b),
        progress("step 1\n"),
        progress("step 2\n\n"),
        progress("step"),
        end(b, "step 1\nstep 2\nstep 3"),
      ],
      [],
      { liveStatus: true },
    );
    expect(out).toBe(
      [
        "● Bash\n",
        `${ERASE}  ⎿ step 1`,
        `${ERASE}  ⎿ step 2`, // the empty line after it does not replace it
        `${ERASE}  ⎿ step`, // the line being written
        ERASE, // gone before the result, which follows its call with no second header
        "  ⎿ step 1\n    step 2\n    step 3\n",
      ].join(""),
    );
  });

  it("is cut to the terminal's width and never redrawn unchanged", () => {
    const long = "x".repeat(100);
    const { out } = render([start(b), progress(`${long}\n`), progress("\n"), end(b, "done")], [], {
      liveStatus: true,
      columns: 20,
    });
    // 4 cells of prefix, 15 of text (the last one an ellipsis), 1 spare: 20 in all, and only one draw.
    expect(out).toBe(`● Bash\n${ERASE}  ⎿ ${"x".repeat(14)}…${ERASE}  ⎿ done\n`);
  });

  it("is erased before any other output, so nothing is written over it", () => {
    const r = call("r", "Glob", "a.ts");
    const { out } = render(
      [start(b), progress("building\n"), start(r), progress("linking"), end(r, "ay")],
      [],
      {
        liveStatus: true,
      },
    );
    expect(out).toBe(
      [
        "● Bash\n",
        `${ERASE}  ⎿ building`,
        `${ERASE}● Glob a.ts\n`,
        // Not under its own call's header: the line says whose output it is.
        `${ERASE}  ⎿ Bash: linking`,
        `${ERASE}  ⎿ ay\n`,
      ].join(""),
    );
  });

  it("names its call once another call's result came between, also when that call has ended", () => {
    const w = call("w", "Write", "two.txt");
    const { out } = render([start(b), start(w), end(w, "denied"), progress("step 3"), end(b, "step 3")], [], {
      liveStatus: true,
    });
    expect(out).toBe(
      [
        "● Bash\n● Write two.txt\n  ⎿ denied\n",
        `${ERASE}  ⎿ Bash: step 3`,
        `${ERASE}● Bash\n  ⎿ step 3\n`,
      ].join(""),
    );
  });

  it("is erased before a notice on the other stream", () => {
    const { out, notices } = render(
      [
        start(b),
        progress("working"),
        { type: "warning", turn: 1, agentPath: [], code: "w", message: "careful" },
      ],
      [],
      { liveStatus: true },
    );
    expect(out).toBe(`● Bash\n${ERASE}  ⎿ working${ERASE}`);
    expect(notices).toBe("⚠ careful\n");
  });

  it("draws through writeStatus when given (the held output of interactive mode)", () => {
    const statuses: string[] = [];
    const { out } = render([start(b), progress("one\ntwo"), end(b, "one\ntwo")], [], {
      liveStatus: true,
      writeStatus: (line) => statuses.push(line),
    });
    expect(statuses).toEqual(["  ⎿ two", ""]);
    expect(out).toBe("● Bash\n  ⎿ one\n    two\n");
  });

  it("not at a terminal: nothing of the progress is written, the result is shown as without it", () => {
    const events = [start(b), progress("secret step\n"), end(b, "tail")];
    expect(render(events).out).toBe("● Bash\n  ⎿ tail\n");
    expect(render(events, [], { liveStatus: false }).out).toBe("● Bash\n  ⎿ tail\n");
  });
});

describe("counts of hidden lines", () => {
  const plain = createStyle(false);
  const output = (text: string) => ({ type: "tool_result" as const, tool_use_id: "t", content: text });
  it("say line for one and lines for more", () => {
    expect(renderResult(output("a\nb\nc"), plain, 2)).toBe("  ⎿ a\n    b\n    … (+1 line)\n");
    expect(renderResult(output("a\nb\nc"), plain, 2, true)).toBe("  ⎿ … (1 line above)\n    b\n    c\n");
  });
});

describe("the task list", () => {
  const todo = (id: string, statuses: string[]): ToolUseBlock => ({
    type: "tool_use",
    id,
    name: "TodoWrite",
    input: {
      todos: statuses.map((status, i) => ({
        content: `Task ${i + 1}`,
        status,
        activeForm: `Doing task ${i + 1}`,
      })),
    },
  });

  it("draws a checklist under the call", () => {
    const first = todo("t1", ["completed", "in_progress", "pending"]);
    const { out } = render([start(first), end(first, "updated")]);
    expect(out).toBe("● TodoWrite\n  ⎿ ☒ Task 1\n    ◼ Doing task 2\n    ☐ Task 3\n");
  });

  it("at a terminal, a new list right under the previous one replaces it in place", () => {
    const first = todo("t1", ["in_progress", "pending"]);
    const second = todo("t2", ["completed", "in_progress"]);
    const { out } = render([start(first), end(first, "ok"), start(second), end(second, "ok")], [], {
      liveStatus: true,
      columns: 80,
      writeStatus: () => {},
    });
    expect(out).toBe(
      "● TodoWrite\n  ⎿ ◼ Doing task 1\n    ☐ Task 2\n\u001b[3A\r\u001b[0J● TodoWrite\n  ⎿ ☒ Task 1\n    ◼ Doing task 2\n",
    );
  });

  it("at a terminal, two calls in one answer draw the second list over the first, one header each time", () => {
    const first = todo("t1", ["in_progress", "pending"]);
    const second = todo("t2", ["completed", "in_progress"]);
    // Both calls start before either ends: the first list must not stay drawn under the second call's header.
    const { out } = render([start(first), start(second), end(first, "ok"), end(second, "ok")], [], {
      liveStatus: true,
      columns: 80,
      writeStatus: () => {},
    });
    expect(out).toBe(
      "● TodoWrite\n  ⎿ ◼ Doing task 1\n    ☐ Task 2\n\u001b[3A\r\u001b[0J● TodoWrite\n  ⎿ ☒ Task 1\n    ◼ Doing task 2\n",
    );
  });

  it("is printed anew when something came between, and never redrawn into a pipe", () => {
    const first = todo("t1", ["pending"]);
    const second = todo("t2", ["in_progress"]);
    const text: AgentEvent[] = [
      { type: "text-start", turn: 1, agentPath: [], id: "0" },
      { type: "text-delta", turn: 1, agentPath: [], id: "0", delta: "Working." },
      { type: "text-end", turn: 1, agentPath: [], id: "0", text: "Working." },
    ];
    const { out } = render([start(first), end(first, "ok"), ...text, start(second), end(second, "ok")], [], {
      liveStatus: true,
      writeStatus: () => {},
    });
    expect(out).not.toContain("\u001b[");
    expect(out.match(/● TodoWrite/g)).toHaveLength(2);
    const piped = render([start(first), end(first, "ok"), start(second), end(second, "ok")]);
    expect(piped.out).not.toContain("\u001b[");
  });
});
