/** What the parser found in the text, in order. */
export type ToolCallToken =
  /** Plain text, outside any tag (never a possible tag prefix: that is held back until it is decided). */
  | { type: "text"; text: string }
  /**
   * An opening `<tool_call …>` tag was read. `error` names what is wrong with it (missing or unknown attribute,
   * bad syntax); the call still runs its course so that its body is not mistaken for text.
   */
  | { type: "call-start"; name: string; tag: string; error?: string }
  /** Body text of the current call (raw JSON), exactly as written. */
  | { type: "call-delta"; text: string }
  /** The call ended: `</tool_call>`, a self-closing tag, or (with `error`) the end of the text. */
  | { type: "call-end"; error?: string };

const OPEN = "<tool_call";
/** The characters the text scan stops at: code markers, line ends and a possible tag start. */
const SPECIAL = /[`~\n<]/g;
const CLOSE = "</tool_call>";
/** An opening tag longer than this without its `>` is not a tag we will read. */
const MAX_TAG = 2000;

/**
 * A streaming parser for the XML-tag tool protocol: `<tool_call name="Read">{"file_path": "/a"}</tool_call>` in
 * the model's text. Feed it text deltas as they arrive; it returns tokens at once, holding back only what could
 * still be the start of a tag (`<tool_c` at the end of a delta), so text reaches the UI without waiting and a tag
 * split across deltas at any position is still found. Each character is examined a bounded number of times:
 * linear in the text.
 *
 * Rules: `name` is the only attribute (double or single quotes); `<tool_call name="X"/>` is a call without input;
 * `<tool_calls` and other longer names are text. The body is not parsed here (it is JSON for the accumulator);
 * the first `</tool_call>` ends it. A tag quoted as Markdown code — inside a fenced block (``` or ~~~) or an
 * inline code span — is text: a model explaining the protocol, or quoting a file that contains it, calls nothing.
 */
export class XmlToolCallParser {
  private state: "text" | "tag" | "body" = "text";
  /** Where the text is in Markdown terms: inside a code fence or span, a `<tool_call>` is quoted, not made. */
  private readonly markdown = new MarkdownCode();
  /** Held-back text: a possible tag prefix (text), the tag so far (tag), a possible close prefix (body). */
  private pending = "";

  push(delta: string): ToolCallToken[] {
    const out: ToolCallToken[] = [];
    let input = this.pending + delta;
    this.pending = "";
    while (input.length > 0) {
      if (this.state === "text") input = this.text(input, out);
      else if (this.state === "tag") input = this.tag(input, out);
      else input = this.body(input, out);
    }
    return out;
  }

  /** The text ended: releases held-back text, and ends an unfinished tag or call with an error. */
  finish(): ToolCallToken[] {
    const out: ToolCallToken[] = [];
    const pending = this.pending;
    this.pending = "";
    if (this.state === "text") {
      if (pending !== "") out.push({ type: "text", text: pending });
    } else if (this.state === "tag") {
      const tag = OPEN + pending;
      out.push({
        type: "call-start",
        name: "",
        tag,
        error: `the tag ${quote(tag)} was never closed with ">"`,
      });
      out.push({ type: "call-end", error: `the tag ${quote(tag)} was never closed with ">"` });
    } else {
      if (pending !== "") out.push({ type: "call-delta", text: pending });
      out.push({ type: "call-end", error: "the call was not closed with </tool_call>" });
    }
    this.state = "text";
    return out;
  }

  /** Inside a tag or a call body (the text ended there if `finish` is called now). */
  get inCall(): boolean {
    return this.state !== "text";
  }

  private text(input: string, out: ToolCallToken[]): string {
    const md = this.markdown;
    let from = 0;
    for (;;) {
      SPECIAL.lastIndex = from;
      const match = SPECIAL.exec(input);
      const at = match ? match.index : input.length;
      if (at > from) md.plain(input, from, at);
      if (!match) break;
      const c = input[at]!;
      if (c === "\n") {
        md.newline();
        from = at + 1;
      } else if (c === "`" || c === "~") {
        let end = at + 1;
        while (end < input.length && input[end] === c) end++;
        if (end === input.length) {
          // A run at the very end: its length (and so what it opens or closes) depends on what follows.
          return this.holdBack(input, at, out);
        }
        md.run(c, end - at);
        from = end;
      } else if (md.inCode) {
        // `<` inside a code span or fence: quoted text, never a call.
        md.plain(input, at, at + 1);
        from = at + 1;
      } else if (input.startsWith(OPEN, at)) {
        const next = input[at + OPEN.length];
        // `<tool_call` at the very end: whether it is a tag depends on what follows.
        if (next === undefined) return this.holdBack(input, at, out);
        if (next === ">" || next === "/" || /\s/.test(next)) {
          emitText(out, input.slice(0, at));
          md.plain(input, at, at + 1);
          this.state = "tag";
          return input.slice(at + OPEN.length);
        }
        md.plain(input, at, at + 1);
        from = at + 1;
      } else if (OPEN.startsWith(input.slice(at))) {
        // A possible tag prefix at the end (`<tool_c`): held back until decided.
        return this.holdBack(input, at, out);
      } else {
        md.plain(input, at, at + 1);
        from = at + 1;
      }
    }
    emitText(out, input);
    return "";
  }

  /** Emits the text before `at` and keeps the rest for the next push (its state not yet applied). */
  private holdBack(input: string, at: number, out: ToolCallToken[]): string {
    emitText(out, input.slice(0, at));
    this.pending = input.slice(at);
    return "";
  }

  private tag(input: string, out: ToolCallToken[]): string {
    const end = input.indexOf(">");
    if (end < 0) {
      this.pending = input;
      if (input.length > MAX_TAG) {
        // Not a tag after all: give it back as text.
        this.state = "text";
        this.pending = "";
        emitText(out, OPEN + input);
      }
      return "";
    }
    const attributes = input.slice(0, end);
    const tag = `${OPEN}${attributes}>`;
    const selfClosing = attributes.trimEnd().endsWith("/");
    const parsed = parseAttributes(selfClosing ? attributes.trimEnd().slice(0, -1) : attributes);
    out.push(
      parsed.error === undefined
        ? { type: "call-start", name: parsed.name, tag }
        : { type: "call-start", name: parsed.name, tag, error: parsed.error },
    );
    if (selfClosing) {
      out.push(parsed.error === undefined ? { type: "call-end" } : { type: "call-end", error: parsed.error });
      this.state = "text";
    } else {
      this.state = "body";
    }
    return input.slice(end + 1);
  }

  private body(input: string, out: ToolCallToken[]): string {
    const at = input.indexOf(CLOSE);
    if (at >= 0) {
      if (at > 0) out.push({ type: "call-delta", text: input.slice(0, at) });
      out.push({ type: "call-end" });
      this.state = "text";
      return input.slice(at + CLOSE.length);
    }
    const keep = heldPrefix(input, CLOSE);
    const body = input.slice(0, input.length - keep);
    if (body !== "") out.push({ type: "call-delta", text: body });
    this.pending = input.slice(input.length - keep);
    return "";
  }
}

function emitText(out: ToolCallToken[], text: string): void {
  if (text === "") return;
  const last = out[out.length - 1];
  if (last?.type === "text") last.text += text;
  else out.push({ type: "text", text });
}

/** The length of the longest suffix of `text` that is a proper prefix of `marker`. */
function heldPrefix(text: string, marker: string): number {
  const max = Math.min(text.length, marker.length - 1);
  for (let n = max; n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

const ATTRIBUTE = /\s*([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;

/** `name="X"` and nothing else. */
function parseAttributes(text: string): { name: string; error?: string } {
  let name: string | undefined;
  const unknown: string[] = [];
  ATTRIBUTE.lastIndex = 0;
  let at = 0;
  for (;;) {
    ATTRIBUTE.lastIndex = at;
    const match = ATTRIBUTE.exec(text);
    if (!match) break;
    at = ATTRIBUTE.lastIndex;
    const [, key, double, single] = match;
    if (key === "name") name = unescapeAttribute(double ?? single ?? "");
    else unknown.push(key!);
  }
  const rest = text.slice(at).trim();
  if (rest !== "") {
    return {
      name: name ?? "",
      error: `cannot read the attributes of <tool_call${text}>: write <tool_call name="ToolName">`,
    };
  }
  if (unknown.length > 0) {
    return {
      name: name ?? "",
      error: `unknown attribute${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => `"${u}"`).join(", ")} on <tool_call>: name is the only attribute`,
    };
  }
  if (name === undefined || name === "") {
    return { name: "", error: 'the <tool_call> tag has no name: write <tool_call name="ToolName">' };
  }
  return { name };
}

function unescapeAttribute(value: string): string {
  return value
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

function quote(tag: string): string {
  return tag.length > 60 ? `${tag.slice(0, 60)}…` : tag;
}

/**
 * The Markdown code state of the text outside calls, as CommonMark reads it, fed run by run:
 * - a fence opens at the start of a line (at most three spaces in) with three or more backticks or tildes, and
 *   closes at a line that starts with a run of the same character at least as long;
 * - outside fences, a run of backticks opens an inline code span that the next run of the same length closes.
 *   A span still open at the end of its line is dropped (an unmatched backtick is literal), so a stray backtick
 *   cannot hide the calls of the lines after it.
 */
class MarkdownCode {
  private fence: { char: string; length: number } | undefined;
  /** The backtick count of the open inline span (0: none). */
  private span = 0;
  /** At the start of a line, with `indent` spaces so far. */
  private lineStart = true;
  private indent = 0;

  get inCode(): boolean {
    return this.fence !== undefined || this.span > 0;
  }

  /** Ordinary characters `text[from..to)` (no code marker, no line end). */
  plain(text: string, from: number, to: number): void {
    if (!this.lineStart) return;
    for (let i = from; i < to; i++) {
      if (text[i] !== " " || this.indent >= 3) {
        this.lineStart = false;
        return;
      }
      this.indent++;
    }
  }

  newline(): void {
    this.lineStart = true;
    this.indent = 0;
    this.span = 0;
  }

  /** A whole run of `length` backticks or tildes. */
  run(char: string, length: number): void {
    const atLineStart = this.lineStart;
    this.lineStart = false;
    if (this.fence) {
      if (atLineStart && char === this.fence.char && length >= this.fence.length) this.fence = undefined;
    } else if (this.span > 0) {
      if (char === "`" && length === this.span) this.span = 0;
    } else if (atLineStart && length >= 3) {
      this.fence = { char, length };
    } else if (char === "`") {
      this.span = length;
    }
  }
}
