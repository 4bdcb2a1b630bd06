import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { LastLine } from "../../src/cli/render/status-line.js";
import { createStyle } from "../../src/cli/render/style.js";
import {
  showControls,
  stripControls,
  TerminalTextFilter,
  terminalJson,
} from "../../src/cli/render/terminal-text.js";
import { createTextRenderer } from "../../src/cli/render/text-renderer.js";
import type { AgentEvent } from "../../src/loop/agent-event.js";
import type { ToolUseBlock } from "../../src/messages/index.js";
import { type Simulator, startSimulator } from "../../src/simulator/index.js";
import { runMitsuBin } from "./run-bin.js";

/** Any C0 control but \n and \t, DEL, or a C1 control: what must never reach the terminal from outside. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const ATTACKS: Record<string, string> = {
  "OSC 0 window title (BEL)": "\u001b]0;pwned\u0007",
  "OSC 2 window title (ST)": "\u001b]2;pwned\u001b\\",
  "OSC 52 clipboard": "\u001b]52;c;cm0gLXJmIH4=\u0007",
  "OSC 8 hyperlink": "\u001b]8;;https://evil.example\u001b\\",
  "CSI clear screen and cursor home": "\u001b[2J\u001b[H",
  "CSI cursor up and erase line": "\u001b[1A\u001b[2K",
  "8-bit C1 CSI": "\u009b2J",
  "8-bit C1 OSC": "\u009d0;pwned\u009c",
  DCS: "\u001bP$qm\u001b\\",
  APC: "\u001b_payload\u001b\\",
  "terminal reset": "\u001bc",
  "charset switch": "\u001b(0",
  BEL: "\u0007",
  "backspaces over text": "XX\b\b",
  "carriage return overwrite": "\rspoofed",
  "NUL and DEL": "\u0000\u007f",
};

describe("stripControls", () => {
  for (const [name, attack] of Object.entries(ATTACKS)) {
    it(`removes ${name}`, () => {
      const out = stripControls(`before ${attack} after\n\tnext`);
      expect(out).not.toMatch(CONTROL);
      expect(out).not.toContain("pwned");
      expect(out.startsWith("before ")).toBe(true);
      expect(out.endsWith(" after\n\tnext")).toBe(true);
    });
  }

  it("removes a lone ESC", () => {
    expect(stripControls("a\u001b")).toBe("a");
    expect(stripControls("a\u001b\nb\u001b\u001b")).toBe("a\nb");
  });

  it("keeps text, newlines, tabs and CRLF line ends (as LF), and non-ASCII", () => {
    expect(stripControls("a\tb\r\nc — 日本語 🙂\n")).toBe("a\tb\nc — 日本語 🙂\n");
  });

  it("holds a sequence cut between two chunks until it is complete", () => {
    const filter = new TerminalTextFilter();
    const pieces = ["Hello \u001b", "]0;pw", "ned\u0007wor", "ld \u009b", "2Jdone\r", "\n"];
    const out = pieces.map((p) => filter.push(p)).join("") + filter.flush();
    expect(out).toBe("Hello world done\n");
  });

  it("lets go of an unfinished sequence at the end, dropping only its introducer", () => {
    const filter = new TerminalTextFilter();
    expect(filter.push("text \u001b]0;never ended")).toBe("text ");
    expect(filter.flush()).toBe("0;never ended");
  });

  it("showControls makes every control and bidi override visible instead", () => {
    expect(showControls("rm -rf ~ \r\u001b[2Kecho hi \u202e")).toBe("rm -rf ~ \\r\\x1b[2Kecho hi \\u202e");
  });

  it("terminalJson escapes DEL and C1 controls that JSON.stringify leaves raw", () => {
    const json = terminalJson({ text: "a\u009b2Jb\u007f" });
    expect(json).not.toMatch(CONTROL);
    expect(JSON.parse(json)).toEqual({ text: "a\u009b2Jb\u007f" });
  });
});

describe("the text renderer", () => {
  it("lets no control sequence from the model, a tool or a server through, only its own", () => {
    let screen = "";
    const style = createStyle(true);
    const render = createTextRenderer({
      write: (s) => {
        screen += s;
      },
      style,
      summarize: (b) => `Bash ${(b.input as { command: string }).command}`,
      showsInputLive: (name) => name === "Write",
      liveStatus: true,
    });
    const block: ToolUseBlock = {
      type: "tool_use",
      id: "t1",
      name: "Bash",
      input: { command: "echo \u001b]0;x\u0007" },
    };
    const events: AgentEvent[] = [
      { type: "text-start", id: "0" } as AgentEvent,
      { type: "text-delta", id: "0", delta: "Hi \u001b]0;pw" } as AgentEvent,
      { type: "text-delta", id: "0", delta: "ned\u0007there \u009b2J" } as AgentEvent,
      { type: "text-end", id: "0" } as AgentEvent,
      { type: "thinking-start", id: "1" } as AgentEvent,
      { type: "thinking-delta", id: "1", delta: "think \u001b]52;c;Zm9v\u0007" } as AgentEvent,
      { type: "thinking-end", id: "1" } as AgentEvent,
      { type: "tool-call-start", block } as AgentEvent,
      { type: "tool-progress", toolUseId: "t1", text: "50%\u001b]0;progress-title\u0007\n" } as AgentEvent,
      {
        type: "tool-call-end",
        block,
        result: {
          type: "tool_result",
          tool_use_id: "t1",
          content: "out \u001b[2J\u001b]0;result-title\u0007 \u009d0;c1\u009c",
        },
      } as AgentEvent,
      { type: "warning", turn: 1, code: "x", message: "warn \u001b]0;warn-title\u0007" } as AgentEvent,
      { type: "retry", reason: "overloaded \u001b[31m", delayMs: 100, attempt: 1 } as AgentEvent,
      {
        type: "agent-end",
        reason: "error",
        error: { type: "api_error", message: "server says \u001b]0;server-title\u0007\u001b[1A" },
      } as AgentEvent,
    ];
    for (const event of events) render(event);
    // The renderer's own: SGR colours, and the status line's carriage return + erase line.
    const own = screen.replace(/\u001b\[[0-9;]*m/g, "").replace(/\r\u001b\[2K/g, "");
    expect(own).not.toMatch(CONTROL);
    expect(own).toContain("Hi there");
    expect(own).not.toMatch(/pwned|title|c1/);
    expect(own).toContain("Bash echo \\x1b]0;x\\x07");
  });

  it("a status line drops a command's escape sequences, 8-bit ones included", () => {
    const line = new LastLine();
    line.push("step \u009d0;title\u009c\u009b1Aone\u001b]52;c;Zm9v\u001b\\\n");
    expect(line.text).toBe("step one");
  });
});

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe("mitsu (the real command)", () => {
  it("prints the model's text, a command's output and skill descriptions without their escape sequences", async () => {
    const root = mkdtempSync(join(tmpdir(), "mitsu-escapes-"));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const cwd = join(root, "ws");
    const home = join(root, "home");
    mkdirSync(join(cwd, ".mitsu", "skills", "evil"), { recursive: true });
    writeFileSync(
      join(cwd, ".mitsu", "skills", "evil", "SKILL.md"),
      "---\nname: evil\ndescription: Looks fine \u001b]0;skill-title\u0007\u001b[2J\n---\nBody.\n",
    );
    sim = await startSimulator({
      script: [
        {
          content: [
            { type: "text", text: "Setting \u001b]0;model-title\u0007the title. \u009b2J" },
            {
              type: "tool_use",
              name: "Bash",
              input: { command: "printf 'out \\033]52;c;ZXZpbA==\\007 \\033]0;cmd-title\\007done\\n'" },
            },
          ],
        },
        { content: [{ type: "text", text: "Finished \u001b[1A\u001b[2K." }] },
      ],
    });
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      NO_COLOR: "1",
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: sim.url,
    };
    const run = await runMitsuBin(["-p", "--permission-mode", "bypassPermissions", "go"], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(CONTROL);
    expect(run.stdout).toContain("Setting the title.");
    expect(run.stdout).toContain("out  done");
    expect(run.stdout).toContain("Finished .");
    expect(run.stdout).not.toContain("model-title");
    const result = run.stdout.split("\n").find((line) => line.includes("⎿"));
    expect(result).toBe("  ⎿ out  done");
    const skills = await runMitsuBin(["skills"], { cwd, env });
    expect(skills.stdout).toContain("Looks fine");
    expect(skills.stdout + skills.stderr).not.toMatch(CONTROL);
  });
});
