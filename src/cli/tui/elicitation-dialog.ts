import { decodeKittyPrintable, matchesKey, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui";
import { checkFieldValue, type ElicitationField, readElicitationForm } from "../../mcp/elicitation-form.js";
import type { McpElicitationAnswer, McpElicitationRequest } from "../../mcp/index.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";
import type { Dialog } from "./screen.js";

/** At most this many lines of the server's message are drawn (the rest is counted). */
const MESSAGE_LINES = 12;
/** At most this many lines of a field's description, and of a list of choices (the list scrolls). */
const DESCRIPTION_LINES = 4;
const CHOICE_LINES = 10;

/**
 * An MCP server's form as a terminal dialog, as Claude Code shows it: the server's name and message, then one
 * field at a time — text typed (numbers checked as they are submitted), a choice picked with ↑/↓ (or its number),
 * yes/no for a boolean (nothing picked until a key picks it, unless the server gave a default). Shift-Tab goes back a
 * field. Enter submits the field (a value that does not fit says why and stays), the last one the
 * form; Esc declines. Everything the server wrote is stripped of control sequences before it is drawn.
 */
export function createElicitationDialog(
  request: McpElicitationRequest,
  style: Style,
  onChange: () => void,
): Dialog<McpElicitationAnswer> {
  const read = readElicitationForm(request.message, request.schema);
  const fields = "ok" in read ? read.ok.fields : [];
  const content: Record<string, string | number | boolean | string[]> = {};
  let index = 0;
  let text = "";
  let selected = 0;
  let picked = new Set<number>();
  let error = "";
  let done = false;
  let settle: (answer: McpElicitationAnswer) => void = () => {};
  const answer = new Promise<McpElicitationAnswer>((resolve) => {
    settle = resolve;
  });
  const finish = (value: McpElicitationAnswer) => {
    if (done) return;
    done = true;
    settle(value);
    onChange();
  };
  const start = (at: number) => {
    index = at;
    const field = fields[at];
    error = at === 0 && request.error ? `Refused: ${request.error}` : "";
    text =
      field &&
      (field.kind === "string" || field.kind === "number" || field.kind === "integer") &&
      field.default !== undefined
        ? String(field.default)
        : "";
    // A yes/no or a choice without a default starts with nothing picked: Enter leaves an optional one out (and
    // says a required one is required) rather than answering the list's first entry, Yes, for the user.
    selected = -1;
    picked = new Set();
    if (field?.kind === "boolean") selected = field.default === true ? 0 : field.default === false ? 1 : -1;
    if (field?.kind === "choice" && typeof field.default === "string")
      selected = field.choices?.findIndex((c) => c.value === field.default) ?? -1;
    // A list of choices: the cursor is not an answer (Space picks), it starts on the first.
    if (field?.kind === "choices") selected = 0;
    if (field?.kind === "choices" && Array.isArray(field.default))
      picked = new Set(
        field.default.map((d) => field.choices?.findIndex((c) => c.value === d) ?? -1).filter((i) => i >= 0),
      );
  };
  start(0);
  if (fields.length === 0 && "error" in read) error = read.error;
  /** Shift-Tab: the field before again, with what was given for it (a typo in field 1 need not cost the form). */
  const back = () => {
    const field = fields[index - 1];
    if (!field) return;
    const given = Object.hasOwn(content, field.name) ? content[field.name] : undefined;
    delete content[field.name];
    start(index - 1);
    if (given !== undefined) {
      const at = (value: unknown) => field.choices?.findIndex((c) => c.value === value) ?? -1;
      if (field.kind === "boolean") selected = given === true ? 0 : 1;
      else if (field.kind === "choice") selected = at(given);
      else if (field.kind === "choices" && Array.isArray(given))
        picked = new Set(given.map(at).filter((i) => i >= 0));
      else text = String(given);
    }
    onChange();
  };

  const submit = () => {
    const field = fields[index];
    if (!field) return finish("ok" in read ? { action: "accept", content } : { action: "decline" });
    const value = fieldValue(field, text, selected, picked);
    if (value === undefined) {
      if (field.required) {
        error = `${clean(field.title)} is required`;
        return onChange();
      }
    } else {
      const why = checkFieldValue(field, value);
      if (why) {
        error = `${clean(field.title)} ${why}`;
        return onChange();
      }
      content[field.name] = value;
    }
    if (index + 1 >= fields.length) return finish({ action: "accept", content });
    start(index + 1);
    onChange();
  };
  /** The server's message cleaned once, not on each frame (each key), and wrapped once for each width. */
  const messageLines = clean(request.message, true).split("\n");
  let message = { inner: 0, lines: [] as string[] };
  const options = (field: ElicitationField | undefined): string[] =>
    field?.kind === "boolean" ? ["Yes", "No"] : (field?.choices ?? []).map((c) => c.title);

  return {
    answer,
    cancel: () => finish({ action: "cancel" }),
    invalidate() {},
    handleInput(data: string) {
      if (done) return;
      if (matchesKey(data, "escape")) return finish({ action: "decline" });
      if (matchesKey(data, "shift+tab")) return back();
      if (matchesKey(data, "enter")) return submit();
      const field = fields[index];
      const count = options(field).length;
      if (field && count > 0) {
        if (matchesKey(data, "up")) selected = selected <= 0 ? count - 1 : selected - 1;
        else if (matchesKey(data, "down") || matchesKey(data, "tab")) selected = (selected + 1) % count;
        else if (field.kind === "choices" && data === " ") {
          if (picked.has(selected)) picked.delete(selected);
          else picked.add(selected);
        } else {
          const typed = (decodeKittyPrintable(data) ?? data).toLowerCase();
          const number = /^[1-9]$/.test(typed) ? Number(typed) - 1 : -1;
          if (field.kind === "boolean" && (typed === "y" || typed === "n")) selected = typed === "y" ? 0 : 1;
          else if (number >= 0 && number < count) selected = number;
          else return;
        }
        error = "";
        return onChange();
      }
      if (matchesKey(data, "backspace")) text = [...text].slice(0, -1).join("");
      else {
        // Typed or pasted text: one line, no control characters (a paste's markers and new lines go).
        const typed = (decodeKittyPrintable(data) ?? data).replace(/\x1b\[20[01]~/g, "");
        const printable = typed.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
        if (printable === "") return;
        text += printable;
      }
      error = "";
      onChange();
    },
    render(width: number): string[] {
      const inner = Math.max(1, width - 2);
      const clip = (line: string) => truncateToWidth(line, width);
      const wrap = (line: string) => wrapTextWithAnsi(line, inner).map((l) => clip(` ${l}`));
      const lines = [clip(style.dim("─".repeat(width)))];
      lines.push(...wrap(style.bold(`MCP server ${clean(request.server)} asks for input`)), "");
      // A frame comes with each tick of the working indicator (10 a second) while the form waits.
      if (message.inner !== inner)
        message = {
          inner,
          lines: messageLines.flatMap((l) => (l === "" ? [""] : wrapTextWithAnsi(l, inner))),
        };
      const wrapped = message.lines;
      lines.push(...wrapped.slice(0, MESSAGE_LINES).map((l) => clip(` ${l}`)));
      if (wrapped.length > MESSAGE_LINES)
        lines.push(clip(` ${style.dim(`… ${wrapped.length - MESSAGE_LINES} more lines`)}`));
      lines.push("");
      const field = fields[index];
      if (field) {
        const head = `${clean(field.title)}${field.required ? " *" : ""}`;
        lines.push(...wrap(`${style.dim(`${index + 1}/${fields.length}`)} ${style.bold(head)}`));
        if (field.description)
          lines.push(...wrap(style.dim(clean(field.description))).slice(0, DESCRIPTION_LINES));
        const list = options(field);
        if (list.length > 0) {
          // A long list scrolls: a window of CHOICE_LINES around the selected one.
          const from = Math.max(
            0,
            Math.min(selected - Math.floor(CHOICE_LINES / 2), list.length - CHOICE_LINES),
          );
          const to = Math.min(list.length, from + CHOICE_LINES);
          if (from > 0) lines.push(clip(`   ${style.dim(`↑ ${from} more`)}`));
          for (let i = from; i < to; i++) {
            const mark = field.kind === "choices" ? (picked.has(i) ? "[x] " : "[ ] ") : "";
            const line = `${i === selected ? style.cyan("❯") : " "} ${i + 1}. ${mark}${clean(list[i]!)}`;
            lines.push(clip(` ${i === selected ? style.cyan(line) : line}`));
          }
          if (to < list.length) lines.push(clip(`   ${style.dim(`↓ ${list.length - to} more`)}`));
        } else {
          // The end of what was typed stays in sight (the cursor is there).
          const room = Math.max(1, inner - 4);
          const chars = [...text];
          const shown = chars.length > room ? `…${chars.slice(chars.length - room + 1).join("")}` : text;
          lines.push(clip(` ${style.cyan("›")} ${shown}${style.dim("▏")}`));
        }
      }
      if (error) lines.push(...wrap(style.red(clean(error))));
      const hint = `${field?.kind === "choices" ? "Space to pick · " : ""}Enter to submit${index > 0 ? " · Shift-Tab back" : ""} · Esc to decline`;
      lines.push("", clip(` ${style.dim(hint)}`));
      return lines;
    },
  };
}

/** A field's value from what was typed or picked; undefined when left empty (an omitted optional field). */
function fieldValue(
  field: ElicitationField,
  text: string,
  selected: number,
  picked: ReadonlySet<number>,
): string | number | boolean | string[] | undefined {
  switch (field.kind) {
    case "boolean":
      return selected < 0 ? undefined : selected === 0;
    case "choice":
      return selected < 0 ? undefined : field.choices?.[selected]?.value;
    case "choices":
      return [...picked].sort((a, b) => a - b).map((i) => field.choices?.[i]?.value ?? "");
    case "number":
    case "integer": {
      if (text.trim() === "") return undefined;
      // Decimal only: Number() also reads 0x10, 0b101 and 0o7, which nobody typing a count means.
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text.trim())) return text;
      return Number(text.trim());
    }
    case "string":
      return text === "" ? undefined : text;
  }
}

/** The server's text for the terminal: control sequences removed; new lines kept only where `lines` says. */
function clean(text: string, lines = false): string {
  const stripped = stripControls(text.replace(/\r\n?/g, "\n")).replace(/[\u202a-\u202e\u2066-\u2069]/g, "");
  return lines ? stripped : stripped.replace(/\n+/g, " ");
}
