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
 * the first `</tool_call>` ends it.
 */
export class XmlToolCallParser {
  private state: "text" | "tag" | "body" = "text";
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
    let from = 0;
    for (;;) {
      const at = input.indexOf(OPEN, from);
      if (at < 0) break;
      const next = input[at + OPEN.length];
      if (next === undefined) {
        // `<tool_call` at the very end: whether it is a tag depends on what follows.
        emitText(out, input.slice(0, at));
        this.pending = input.slice(at);
        return "";
      }
      if (next === ">" || next === "/" || /\s/.test(next)) {
        emitText(out, input.slice(0, at));
        this.state = "tag";
        return input.slice(at + OPEN.length);
      }
      from = at + 1;
    }
    const keep = heldPrefix(input, OPEN);
    emitText(out, input.slice(0, input.length - keep));
    this.pending = input.slice(input.length - keep);
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
