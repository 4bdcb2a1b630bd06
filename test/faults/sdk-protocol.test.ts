import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { readSdkInput } from "../../src/cli/sdk/sdk-input.js";
import { sessionsDir } from "../../src/harness/sessions-dir.js";
import { startSimulator } from "../../src/simulator/index.js";

/** One line the app might write: good, bad, truncated, out of order. */
type Line =
  | { kind: "user"; text: string }
  | { kind: "request"; body: Record<string, unknown> }
  | { kind: "raw"; text: string }
  | { kind: "truncated"; of: Line; at: number };

const SUBTYPES = [
  "initialize",
  "interrupt",
  "set_permission_mode",
  "set_model",
  "set_max_thinking_tokens",
  "mcp_status",
  "get_context_usage",
  "rewind_files",
  "mcp_message",
  "get_settings",
  "apply_flag_settings",
];

const requestBody = fc.oneof(
  fc.record({
    subtype: fc.constantFrom(...SUBTYPES),
    mode: fc.constantFrom("default", "acceptEdits", "plan", "dontAsk", 7),
    model: fc.constantFrom("claude-haiku-4-5", "default", "nonsense:model", null),
    max_thinking_tokens: fc.oneof(
      fc.integer({ min: -5, max: 50_000 }),
      fc.constant(Number.POSITIVE_INFINITY),
    ),
    user_message_id: fc.uuid(),
    server_name: fc.string({ maxLength: 8 }),
    message: fc.constantFrom({ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", method: "x" }, 3),
  }),
  fc.record({ subtype: fc.string({ maxLength: 12 }) }),
);

const lineArb: fc.Arbitrary<Line> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("user" as const),
      text: fc.string({ minLength: 1, maxLength: 20 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("request" as const), body: requestBody }) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.string({ maxLength: 30 }).map((text) => ({ kind: "raw" as const, text })),
      fc
        .constantFrom(
          '{"type":"control_response","response":{"subtype":"success","request_id":"nobody-asked","response":{}}}',
          '{"type":"control_cancel_request","request_id":"nothing"}',
          '{"type":"keep_alive"}',
          '{"type":"control_request","request":{"subtype":"interrupt"}}',
          '{"type":"control_request","request_id":"x-no-body"}',
          '{"type":"user","message":{"role":"user","content":42}}',
          // Image blocks not of a provider's shape (refused alone: once in the history, every later request failed).
          '{"type":"user","message":{"role":"user","content":[{"type":"image","source":{}}]}}',
          '{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":12}}]}}',
          '{"type":"assistant"}',
          "[1,2,3]",
          "null",
        )
        .map((text) => ({ kind: "raw" as const, text })),
    ),
  },
);
const linesArb = fc.array(
  fc.oneof(
    { weight: 5, arbitrary: lineArb },
    {
      weight: 1,
      arbitrary: fc.tuple(lineArb, fc.nat()).map(([of, at]) => ({ kind: "truncated" as const, of, at })),
    },
  ),
  { minLength: 1, maxLength: 12 },
);

function render(line: Line, index: number): string {
  switch (line.kind) {
    case "user":
      return JSON.stringify({
        type: "user",
        message: { role: "user", content: `prompt-${index} ${line.text}` },
      });
    case "request":
      return JSON.stringify({ type: "control_request", request_id: `req-${index}`, request: line.body });
    case "raw":
      return line.text.replace(/\n/g, " ");
    case "truncated": {
      const whole = render(line.of, index);
      // Cut inside the line, so that it is never whole JSON.
      return whole.slice(0, line.at % Math.max(1, whole.length - 1));
    }
  }
}

describe("the SDK protocol under random, truncated and out-of-order input", () => {
  it("every control request is answered once, every prompt has a result, mitsu never dies and keeps its log", async () => {
    const sim = await startSimulator({ script: [] });
    try {
      await fc.assert(
        fc.asyncProperty(linesArb, async (lines) => {
          const rendered = lines.map(render);
          sim.enqueue(...rendered.map(() => ({ content: [{ type: "text" as const, text: "ok" }] })));
          const root = mkdtempSync(join(tmpdir(), "mitsu-sdk-fault-"));
          try {
            const cwd = join(root, "ws");
            const home = join(root, "home");
            mkdirSync(cwd);
            mkdirSync(home);
            let out = "";
            const sink = {
              write: (s: string) => {
                out += s;
                return true;
              },
            } as unknown as NodeJS.WritableStream;
            const code = await main(["--input-format", "stream-json", "--output-format", "stream-json"], {
              stdin: Readable.from(rendered.map((l) => `${l}\n`)),
              stdout: sink,
              stderr: { write: () => true } as unknown as NodeJS.WritableStream,
              cwd,
              home,
              env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: sim.url },
            });
            expect([0, 1]).toContain(code);
            const output = out
              .split("\n")
              .filter((l) => l !== "")
              .map((l) => JSON.parse(l) as { type: string; response?: { request_id?: string } });
            // Each control request that has an id is answered exactly once.
            const asked = lines.flatMap((l, i) => (l.kind === "request" ? [`req-${i}`] : []));
            const answers = output
              .filter((m) => m.type === "control_response")
              .map((m) => m.response?.request_id);
            for (const id of asked) expect(answers.filter((a) => a === id)).toHaveLength(1);
            // Every other line that cannot be used (bad JSON, no request id, an answer to nothing) is one warning.
            const unusable = rendered.filter((l) => {
              const read = readSdkInput(l);
              return (
                (read.kind === "invalid" && read.requestId === undefined) || read.kind === "control_response"
              );
            });
            const warnings = output.filter(
              (m) => m.type === "system" && (m as { subtype?: string }).subtype === "informational",
            );
            expect(warnings).toHaveLength(unusable.length);
            // Each whole user message got its result.
            const prompts = lines.flatMap((l, i) => (l.kind === "user" ? [`prompt-${i} `] : []));
            expect(output.filter((m) => m.type === "result")).toHaveLength(prompts.length);
            // Their log holds every prompt, interrupted ones too.
            if (prompts.length > 0) {
              const dir = sessionsDir({ cwd, home });
              const log = readdirSync(dir)
                .filter((f) => f.endsWith(".jsonl"))
                .map((f) => readFileSync(join(dir, f), "utf8"))
                .join("");
              for (const prompt of prompts) expect(log).toContain(prompt);
            }
          } finally {
            rmSync(root, { recursive: true, force: true });
          }
        }),
        { numRuns: 25, seed: 20261201 },
      );
    } finally {
      await sim.close();
    }
  }, 120_000);
});
