import { createInterface } from "node:readline";
import { createCodingAgent } from "../../harness/index.js";
import type { AgentResult } from "../../loop/agent-event.js";
import { agentOptionsFor } from "../agent-options.js";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import { stripControls, terminalJson } from "../render/terminal-text.js";
import { createPrintOutput } from "../sdk/print-output.js";
import { exitCodeFor, streamJsonEvent } from "./print-mode.js";

/**
 * The text of one `--input-format stream-json` line: Claude Code's
 * `{"type":"user","message":{"role":"user","content":"…" | [{"type":"text","text":"…"}, …]}}`.
 * Undefined for a line of another type; throws for one that is not JSON or has no text.
 */
export function userText(line: string): string | undefined {
  const value = JSON.parse(line) as { type?: unknown; message?: { role?: unknown; content?: unknown } };
  if (value?.type !== "user") return undefined;
  const content = value.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    const text = content
      .map((b: { type?: unknown; text?: unknown }) =>
        b?.type === "text" && typeof b.text === "string" ? b.text : "",
      )
      .filter((t) => t !== "")
      .join("\n\n");
    if (text !== "") return text;
  }
  throw new Error("a user message needs message.content: a string or text blocks");
}

/**
 * `mitsu -p --input-format stream-json --output-format stream-json`: a program drives mitsu. Each user message
 * read from stdin (one JSON object a line) is one prompt in the same conversation, answered in full before the
 * next line is read; the output is Claude Code's stream (`init` once, messages, a `result` per prompt), or
 * mitsu's own events with `--output-format mitsu-events`. Ends at the end of stdin; exit code of the last run.
 */
export async function streamInputMode(options: CliOptions, io: PrintIo): Promise<number> {
  const out = (value: unknown) => io.stdout.write(`${terminalJson(value)}\n`);
  const agent = await createCodingAgent(
    // Warnings quote settings a cloned repository wrote: no escape sequence reaches the terminal.
    agentOptionsFor(options, io, { onWarning: (m) => io.stderr.write(`⚠ ${stripControls(m)}\n`) }),
  );
  const claude = createPrintOutput(agent, { cwd: io.cwd, cacheTtl: options.cacheTtl });
  const own = options.outputFormat === "mitsu-events";
  let code = 0;
  try {
    const pending = options.prompt ? [options.prompt] : [];
    const lines = io.stdin ? createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY }) : [];
    const runOne = async (text: string) => {
      claude.start();
      const run = agent.prompt(text, { ...(io.signal ? { signal: io.signal } : {}), liveInput: own });
      let result: AgentResult;
      for (;;) {
        const next = await run.next();
        if (next.done) {
          result = next.value;
          break;
        }
        if (own) out(streamJsonEvent(next.value));
        else for (const line of claude.lines(next.value)) out(line);
      }
      if (!own) out(claude.result(result));
      code = exitCodeFor(result);
    };
    for (const text of pending) await runOne(text);
    for await (const line of lines) {
      if (line.trim() === "" || io.signal?.aborted) continue;
      let text: string | undefined;
      try {
        text = userText(line);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        io.stderr.write(`mitsu: ignored an input line: ${stripControls(why)}\n`);
        code = 1;
        continue;
      }
      if (text !== undefined) await runOne(text);
    }
    return code;
  } finally {
    await agent.close();
  }
}
