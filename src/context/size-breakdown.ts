import type { ContentBlock } from "../messages/index.js";
import type { ModelRequest } from "../providers/provider.js";
import { isReminderBlock } from "./reminder-engine.js";

/** One row of `mitsu inspect`'s table. */
export interface SizeRow {
  /** `system[0]`, `tools[2] Bash`, `messages[0] user`, `messages[0].content[1] reminder`. */
  part: string;
  kind: "system" | "tool" | "message" | "reminder";
  /** Characters of the part's JSON (what goes on the wire, near enough). */
  chars: number;
  /** An estimate: characters / 4, rounded up. Real counts need the provider's tokenizer. */
  tokens: number;
  /** Carries a `cache_control` breakpoint. */
  breakpoint: boolean;
}

export interface SizeBreakdown {
  rows: SizeRow[];
  totals: {
    system: number;
    tools: number;
    messages: number;
    reminders: number;
    chars: number;
    tokens: number;
  };
  /** The rows as an aligned text table with a totals line and a note on the estimate. */
  text: string;
}

const estimate = (chars: number) => Math.ceil(chars / 4);
const marked = (v: object) => "cache_control" in v && v.cache_control !== undefined;

/**
 * Sizes of every part of a request. Reminder blocks get rows of their own and are not counted in
 * their message's row, so the table shows what reminders cost.
 */
export function sizeBreakdown(request: ModelRequest): SizeBreakdown {
  const rows: SizeRow[] = [];
  const row = (part: string, kind: SizeRow["kind"], value: unknown, breakpoint: boolean) => {
    const chars = JSON.stringify(value).length;
    rows.push({ part, kind, chars, tokens: estimate(chars), breakpoint });
  };
  for (const [i, block] of request.system.entries()) row(`system[${i}]`, "system", block, marked(block));
  for (const [i, tool] of request.tools.entries())
    row(`tools[${i}] ${tool.name}`, "tool", tool, marked(tool));
  for (const [i, message] of request.messages.entries()) {
    const own: ContentBlock[] = [];
    for (const [j, block] of message.content.entries()) {
      if (isReminderBlock(block))
        row(`messages[${i}].content[${j}] reminder`, "reminder", block, marked(block));
      else own.push(block);
    }
    row(`messages[${i}] ${message.role}`, "message", { role: message.role, content: own }, own.some(marked));
  }
  const sum = (kind: SizeRow["kind"]) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.chars, 0);
  const chars = rows.reduce((n, r) => n + r.chars, 0);
  const totals = {
    system: sum("system"),
    tools: sum("tool"),
    messages: sum("message"),
    reminders: sum("reminder"),
    chars,
    tokens: estimate(chars),
  };
  return { rows, totals, text: renderTable(rows, totals) };
}

function renderTable(rows: SizeRow[], totals: SizeBreakdown["totals"]): string {
  const width = Math.max(4, ...rows.map((r) => r.part.length));
  const line = (part: string, chars: string, tokens: string, mark: string) =>
    `${part.padEnd(width)}  ${chars.padStart(9)}  ${tokens.padStart(8)}  ${mark}`;
  const out = [
    line("part", "chars", "~tokens", "cache"),
    line("-".repeat(width), "-----", "-------", "-----"),
  ];
  for (const r of rows) out.push(line(r.part, String(r.chars), String(r.tokens), r.breakpoint ? "◆" : ""));
  out.push(line("-".repeat(width), "-----", "-------", ""));
  for (const [name, value] of [
    ["system", totals.system],
    ["tools", totals.tools],
    ["messages", totals.messages],
    ["reminders", totals.reminders],
  ] as const) {
    out.push(line(`total ${name}`, String(value), String(estimate(value)), ""));
  }
  out.push(line("total", String(totals.chars), String(totals.tokens), ""));
  out.push("", "~tokens is an estimate (characters / 4); ◆ marks a cache_control breakpoint.");
  return out.join("\n");
}
