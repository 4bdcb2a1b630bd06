import { Lexer, type Links, type Token, Tokenizer } from "marked";
import { capNesting } from "./cap-nesting.js";

/** Inline text is lexed in pieces of about this many characters (see `inlineChunks`). */
const INLINE_CHUNK = 500;
/** Inline lexings kept for the open block, which is lexed again on each change. */
const INLINE_CACHE = 64;

/** Blocks that end where their last line does: once another block follows them, nothing can change them. */
const CLOSED_AT_LINE_END = new Set(["heading", "hr", "code"]);

interface QueuedInline {
  src: string;
  tokens: Token[];
}

/**
 * A Markdown text that grows, split into finished blocks and the open end. Finished blocks (a paragraph after its
 * blank line, a closed fence followed by more, a table or list after a blank line) are lexed once and never
 * again; each change lexes only the open end. Where a block ends is decided as the whole text would decide it:
 * only a blank line, or the start of another block after a heading, a rule or a fence, finishes a block (a
 * paragraph's next line may still make it a heading or a table; a list's may continue it).
 *
 * The text must already be free of control characters (see `TerminalTextFilter`).
 */
export class MarkdownBlocks {
  #finished: Token[] = [];
  #tail = "";
  #open: Token[] = [];
  #dirty = false;
  #ended = false;
  /** The link definitions in the finished blocks (the open ones' are lexed anew each time: `[l]: h` may grow). */
  #links: Links = Object.create(null) as Links;
  #inlineCache = new Map<string, Token[]>();

  /** Adds text at the end. */
  append(text: string): void {
    if (text === "") return;
    if (this.#ended) throw new Error("MarkdownBlocks: append after end");
    this.#tail += text;
    this.#dirty = true;
  }

  /** No more text: the open blocks are finished too. */
  end(): void {
    this.#ended = true;
    this.#dirty = true;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The finished blocks, in order; only ever grows. */
  get finished(): readonly Token[] {
    this.#settle();
    return this.#finished;
  }

  /** The blocks after the finished ones, lexed anew after each change (none once ended). */
  get open(): readonly Token[] {
    this.#settle();
    return this.#open;
  }

  #settle(): void {
    if (!this.#dirty) return;
    this.#dirty = false;
    const source = capNesting(this.#tail);
    const starts = new Map<Token, number>();
    const lexer = new Lexer({ gfm: true, tokenizer: measuringTokenizer(starts) });
    lexer.tokens.links = Object.assign(Object.create(null) as Links, this.#links);
    let tokens: Token[];
    try {
      tokens = lexer.blockTokens(source, []);
    } catch {
      // Deeper recursion than the caps allow for: the text as it is, unparsed.
      tokens = [
        {
          type: "paragraph",
          raw: source,
          text: source,
          tokens: [{ type: "text", raw: source, text: source }],
        },
      ];
    }
    const queue = (lexer as unknown as { inlineQueue: QueuedInline[] }).inlineQueue;
    for (const { src, tokens: into } of queue) this.#inline(lexer, src, into);
    // A block after blank space and a list is known to start there only once its first line is whole: `1` may yet
    // become `1. two`, the list's next item (no other block goes on past a blank line but code, which takes the
    // blank lines in).
    const lineWhole = (token: Token) => source.indexOf("\n", starts.get(token) ?? source.length) !== -1;
    const cut = this.#ended ? tokens.length : finishedCount(tokens, lineWhole);
    if (cut === 0) {
      this.#open = tokens;
      return;
    }
    // Where the open part starts in the source: a line start, else (never seen) nothing is finished yet.
    const offset = this.#ended ? source.length : (starts.get(tokens[cut] as Token) ?? -1);
    if (offset <= 0 || (!this.#ended && source[offset - 1] !== "\n")) {
      this.#open = tokens;
      return;
    }
    this.#finished.push(...tokens.slice(0, cut));
    if (!this.#ended && source.lastIndexOf("]:", offset) !== -1)
      addDefinitions(source.slice(0, offset), this.#links);
    this.#open = tokens.slice(cut);
    if (this.#ended) {
      this.#tail = "";
      return;
    }
    // Drop the finished blocks' lines from the tail (capping kept the number of lines, not their text).
    let lines = 0;
    for (let i = 0; i < offset; i++) if (source.charCodeAt(i) === 10) lines++;
    let at = 0;
    for (let i = 0; i < lines; i++) at = this.#tail.indexOf("\n", at) + 1;
    this.#tail = this.#tail.slice(at);
    this.#inlineCache.clear();
  }

  /** Inline-lexes `src` into `into` in pieces (see `inlineChunks`), each piece cached for the open block. */
  #inline(lexer: Lexer, src: string, into: Token[]): void {
    for (const chunk of inlineChunks(src)) {
      let lexed = this.#inlineCache.get(chunk);
      if (!lexed) {
        try {
          lexed = lexer.inlineTokens(chunk, []);
        } catch {
          lexed = [{ type: "text", raw: chunk, text: chunk }];
        }
        if (this.#inlineCache.size >= INLINE_CACHE)
          this.#inlineCache.delete(this.#inlineCache.keys().next().value as string);
        this.#inlineCache.set(chunk, lexed);
      }
      into.push(...lexed);
    }
  }
}

/**
 * Notes the link definitions in `finished` (blocks that are done), the first of each name winning. The lexer
 * keeps no definition in its tokens, and one in the open part may still grow (`[l]: h` becoming `[l]: http://y`),
 * so the finished part is lexed once more for them when it may have one.
 */
function addDefinitions(finished: string, links: Links): void {
  const lexer = new Lexer({ gfm: true });
  lexer.tokens.links = links;
  try {
    lexer.blockTokens(finished, []);
  } catch {
    // Too deep to lex: its definitions are left out, as its text is drawn unparsed.
  }
}

const BLOCK_METHODS = [
  "space",
  "code",
  "fences",
  "heading",
  "hr",
  "blockquote",
  "list",
  "html",
  "def",
  "table",
  "lheading",
  "paragraph",
  "text",
] as const;

/**
 * A tokenizer that notes where each top-level block starts in the source. The lexer advances by each token's
 * `raw` as the tokenizer returns it, but then merges some tokens into the one before (a paragraph's lazy lines),
 * adding a `\n` to `raw` that the source does not have: the tokens' `raw` cannot be summed to find an offset.
 */
function measuringTokenizer(starts: Map<Token, number>): Tokenizer {
  const tokenizer = new Tokenizer();
  let consumed = 0;
  let depth = 0;
  const methods = tokenizer as unknown as Record<string, (...args: unknown[]) => Token | undefined>;
  for (const name of BLOCK_METHODS) {
    const original = methods[name]?.bind(tokenizer);
    if (!original) continue;
    methods[name] = (...args: unknown[]) => {
      depth++;
      try {
        const token = original(...args);
        if (token && depth === 1) {
          starts.set(token, consumed);
          consumed += token.raw.length;
        }
        return token;
      } finally {
        depth--;
      }
    };
  }
  return tokenizer;
}

/**
 * How many of `tokens` are finished: those before the last block that is not blank space, up to the last
 * boundary that nothing later can move (after blank space — after a list, only once the next block's first line is
 * whole: a list goes on past a blank line when that line is its next item — or after a heading, rule or fence).
 */
function finishedCount(tokens: readonly Token[], lineWhole: (token: Token) => boolean): number {
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last]?.type === "space") last--;
  for (let j = last; j > 0; j--) {
    const before = tokens[j - 1];
    if (!before) break;
    if (
      before.type === "space" &&
      before.raw.endsWith("\n") &&
      (tokens[j - 2]?.type !== "list" || lineWhole(tokens[j] as Token))
    )
      return j;
    // A rule right under another block is not a boundary yet: marked reads `a\n- b\n___\nc\n---` as one setext
    // heading, the rule inside it (CommonMark would not), and the whole text is drawn as marked reads it.
    if (
      CLOSED_AT_LINE_END.has(before.type) &&
      before.raw.endsWith("\n") &&
      (before.type !== "code" || isFenced(before)) &&
      !(before.type === "hr" && j >= 2 && tokens[j - 2]?.type !== "space")
    )
      return j;
  }
  return 0;
}

function isFenced(token: Token): boolean {
  return token.type === "code" && token.codeBlockStyle !== "indented";
}

/**
 * Inline text in pieces of about `INLINE_CHUNK` characters, cut at a space where the delimiters before it are
 * balanced where possible. The inline lexer takes time quadratic (for `[a](` repeated, cubic) in the length of
 * what it reads; in pieces the cost is linear in the text. Text this long is rare in an answer; emphasis that
 * spans a cut shows its markers.
 */
export function inlineChunks(src: string): string[] {
  if (src.length <= INLINE_CHUNK * 2) return [src];
  const chunks: string[] = [];
  let start = 0;
  while (src.length - start > INLINE_CHUNK * 2) {
    const limit = start + INLINE_CHUNK * 2;
    let balancedCut = -1;
    let anyCut = -1;
    let stars = 0;
    let unders = 0;
    let ticks = 0;
    let brackets = 0;
    for (let i = start; i < limit; i++) {
      const c = src.charCodeAt(i);
      if (c === 42) stars++;
      else if (c === 95) unders++;
      else if (c === 96) ticks++;
      else if (c === 91) brackets++;
      else if (c === 93) brackets--;
      else if ((c === 32 || c === 10) && i >= start + INLINE_CHUNK) {
        anyCut = i + 1;
        if (stars % 2 === 0 && unders % 2 === 0 && ticks % 2 === 0 && brackets === 0) balancedCut = i + 1;
      }
    }
    let cut = balancedCut > 0 ? balancedCut : anyCut > 0 ? anyCut : limit;
    // Never between the halves of a surrogate pair.
    if (cut === limit && /[\ud800-\udbff]/.test(src[cut - 1] ?? "")) cut--;
    chunks.push(src.slice(start, cut));
    start = cut;
  }
  chunks.push(src.slice(start));
  return chunks;
}
