import { createRequire } from "node:module";
import type { Format, MarkdownTheme } from "./markdown-theme.js";

/** One piece of a highlighted line: its text and the highlight.js scope it is in ("" for none). */
export interface CodePiece {
  text: string;
  scope: string;
}

/** highlight.js's core, as much of its API as is used here. */
interface Highlighter {
  registerLanguage(name: string, language: unknown): void;
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

/**
 * The languages registered on demand: fence label (lower case) → highlight.js language module. Others show
 * without colours: auto-detection would run every grammar over the block.
 */
const LANGUAGES: Record<string, string> = {
  bash: "bash",
  sh: "bash",
  shell: "bash",
  zsh: "bash",
  console: "shell",
  shellsession: "shell",
  c: "c",
  h: "c",
  cpp: "cpp",
  "c++": "cpp",
  cc: "cpp",
  hpp: "cpp",
  cs: "csharp",
  csharp: "csharp",
  css: "css",
  scss: "scss",
  diff: "diff",
  patch: "diff",
  dockerfile: "dockerfile",
  docker: "dockerfile",
  go: "go",
  golang: "go",
  html: "xml",
  xml: "xml",
  svg: "xml",
  vue: "xml",
  ini: "ini",
  toml: "ini",
  java: "java",
  js: "javascript",
  javascript: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  json: "json",
  jsonc: "json",
  json5: "json",
  kotlin: "kotlin",
  kt: "kotlin",
  lua: "lua",
  makefile: "makefile",
  make: "makefile",
  markdown: "markdown",
  md: "markdown",
  php: "php",
  py: "python",
  python: "python",
  python3: "python",
  rb: "ruby",
  ruby: "ruby",
  rs: "rust",
  rust: "rust",
  sql: "sql",
  swift: "swift",
  ts: "typescript",
  typescript: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  yaml: "yaml",
  yml: "yaml",
};

const require = createRequire(import.meta.url);
let core: Highlighter | undefined;

/**
 * highlight.js's core, required on the first code block that names a known language (~15 ms, never at start-up),
 * with the block's language registered then; each further language on its first block.
 */
function highlighterFor(label: string): { hljs: Highlighter; language: string } | undefined {
  const language = LANGUAGES[label.toLowerCase()];
  if (language === undefined) return undefined;
  try {
    core ??= require("highlight.js/lib/core") as Highlighter;
    if (!core.getLanguage(language)) {
      const module = require(`highlight.js/lib/languages/${language}`) as { default?: unknown };
      core.registerLanguage(language, module.default ?? module);
    }
    return { hljs: core, language };
  } catch {
    return undefined; // a broken install shows code without colours rather than no answer
  }
}

/** Cached highlighted segments: an open block is highlighted again on each change, its finished part from here. */
const cache = new Map<string, CodePiece[][]>();
const CACHE_LIMIT = 256;

/** Past this length a code block is highlighted in segments (see `segments`), each cached on its own. */
const SEGMENT_LENGTH = 2000;

/**
 * The lines of `code` split into highlighted pieces. A long block is cut into segments at a blank line followed
 * by an unindented line (a new top-level statement in most languages, where a grammar's state starts afresh),
 * each highlighted alone: a block streaming in is then highlighted in time proportional to its last segment,
 * and the cut depends on the text only, so a streamed block and the whole one look the same.
 */
export function highlightCode(code: string, label: string): CodePiece[][] {
  const found = label === "" ? undefined : highlighterFor(label);
  if (!found) return code.split("\n").map((line) => [{ text: line, scope: "" }]);
  const lines: CodePiece[][] = [];
  for (const segment of segments(code)) {
    const key = `${found.language}\u0000${segment}`;
    let highlighted = cache.get(key);
    if (!highlighted) {
      highlighted = parseHtml(
        found.hljs.highlight(segment, { language: found.language, ignoreIllegals: true }).value,
      );
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      cache.set(key, highlighted);
    }
    lines.push(...highlighted);
  }
  return lines;
}

function segments(code: string): string[] {
  if (code.length <= SEGMENT_LENGTH) return [code];
  const out: string[] = [];
  let start = 0;
  const restart = /\n\n(?=[^\s])/g;
  restart.lastIndex = SEGMENT_LENGTH;
  for (let m = restart.exec(code); m; m = restart.exec(code)) {
    out.push(code.slice(start, m.index + 1)); // keeps its own line end; the blank line starts the next one
    start = m.index + 1;
    restart.lastIndex = start + SEGMENT_LENGTH;
  }
  out.push(code.slice(start));
  // Each segment but the last ends with "\n": drop that empty last line when joining.
  return out.map((s, i) => (i < out.length - 1 ? s.slice(0, -1) : s));
}

const TAG = /<span class="([^"]*)">|<\/span>|[^<]+/g;

/**
 * highlight.js's HTML (spans and escaped text, nothing else) as lines of pieces. The text in it is the code,
 * escaped by highlight.js: unescaped here, it is the code again.
 */
function parseHtml(html: string): CodePiece[][] {
  const lines: CodePiece[][] = [[]];
  const scopes: string[] = [];
  TAG.lastIndex = 0;
  for (let m = TAG.exec(html); m; m = TAG.exec(html)) {
    if (m[1] !== undefined) {
      scopes.push(scopeName(m[1]) || (scopes.at(-1) ?? ""));
      continue;
    }
    if (m[0] === "</span>") {
      scopes.pop();
      continue;
    }
    const scope = scopes.at(-1) ?? "";
    unescapeHtml(m[0])
      .split("\n")
      .forEach((text, i) => {
        if (i > 0) lines.push([]);
        if (text !== "") lines.at(-1)?.push({ text, scope });
      });
  }
  return lines;
}

/** `hljs-title function_` → `title.function`. */
function scopeName(classes: string): string {
  const [first = "", ...rest] = classes.split(" ");
  const base = first.replace(/^hljs-/, "");
  const subs = rest.filter((c) => c.endsWith("_")).map((c) => c.replace(/_+$/, ""));
  return [base, ...subs].join(".");
}

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#x27|#39);/g, (_, e: string) =>
    e === "amp" ? "&" : e === "lt" ? "<" : e === "gt" ? ">" : e === "quot" ? '"' : "'",
  );
}

/** The style of a piece: its scope's, over the plain code style. */
export function pieceFormat(theme: MarkdownTheme, scope: string): Format {
  return scope === "" ? theme.codeText : theme.syntax(scope);
}
