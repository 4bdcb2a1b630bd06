import { describe, expect, it } from "vitest";
import { createStyle } from "../../src/cli/style.js";
import { createTextRenderer, formatDelay, renderResult } from "../../src/cli/text-renderer.js";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { ToolUseBlock } from "../../src/messages/index.js";

const style = createStyle(false);

function render(events: AgentEvent[], live: string[] = []) {
  let out = "";
  let notices = "";
  const renderer = createTextRenderer({
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
const start = (block: ToolUseBlock): AgentEvent => ({ type: "tool-call-start", turn: 1, block });
const end = (block: ToolUseBlock, content: string): AgentEvent => ({
  type: "tool-call-end",
  turn: 1,
  block,
  result: { type: "tool_result", tool_use_id: block.id, content },
  durationMs: 1,
});

describe("the text renderer", () => {
  it("a result that does not follow its own call names the call again", () => {
    const a = call("a", "Read", "a.ts");
    const b = call("b", "Read", "b.ts");
    const { out } = render([start(a), start(b), end(b, "bee"), end(a, "ay")]);
    expect(out).toBe(["● Read a.ts", "● Read b.ts", "  ⎿ bee", "● Read a.ts", "  ⎿ ay", ""].join("\n"));
  });

  it("a single call's result follows its header once", () => {
    const a = call("a", "Read", "a.ts");
    expect(render([start(a), end(a, "ay")]).out).toBe("● Read a.ts\n  ⎿ ay\n");
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

  it("writes delays in ms under a second and in seconds above", () => {
    expect(formatDelay(177.4)).toBe("177 ms");
    expect(formatDelay(2000)).toBe("2 s");
    expect(formatDelay(2890)).toBe("2.9 s");
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
