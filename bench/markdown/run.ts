/**
 * bench/markdown: CPU to show a 200 KB Markdown answer streamed in 20-byte deltas, drawing after every delta
 * (the worst case: a UI draws at most once per frame). mitsu's `MarkdownStream` (finished blocks cached, only the
 * open block re-drawn) side by side with what a renderer without increments does: lex and draw the whole text
 * so far on each delta (pi-tui's Markdown component does this on `setText`; `marked.lexer` alone is a lower bound
 * for any renderer that re-parses). Whole-text costs grow with the prefix, so they are measured at 40 prefix
 * lengths and summed over the deltas between them (a full run would take minutes). Also: the highlighter's
 * load cost. `--quick`: a 50 KB answer.
 */
import { Lexer } from "marked";
import { MarkdownStream, renderMarkdown } from "../../src/cli/render/markdown/index.js";

const quick = process.argv.includes("--quick");
const SIZE = (quick ? 50 : 200) * 1024;
const DELTA = 20;
const WIDTH = 100;
const SAMPLES = 40;

/** A long answer in the shape models write: headings, paragraphs, lists, tables, code. */
function answer(size: number): string {
  const parts: string[] = [];
  let n = 0;
  while (parts.join("").length < size) {
    n++;
    parts.push(
      `## Step ${n}: what changed\n\n`,
      `The **parser** in \`src/module-${n}.ts\` now keeps *one* state per stream, so a delta costs what it adds. See [the notes](https://example.com/notes/${n}) for the reasoning, and 日本語の説明もあります。\n\n`,
      `- first point about item ${n}\n- second point, a little longer so that it wraps at a narrow terminal width\n  - a nested detail\n- [x] a finished task\n\n`,
      `| file | lines | change |\n|---|--:|---|\n| a${n}.ts | ${n * 3} | renamed |\n| b${n}.ts | ${n * 7} | rewrote the loop to stream |\n\n`,
      `\`\`\`ts\nexport function step${n}(input: string): number {\n  // count the lines\n  return input.split("\\n").length + ${n};\n}\n\`\`\`\n\n`,
      `> Note: this is safe to run twice.\n\n`,
    );
  }
  return parts.join("").slice(0, size);
}

function cpuMs(fn: () => void): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

const text = answer(SIZE);
const deltas = Math.ceil(text.length / DELTA);

// Load cost of the highlighter (required on the first code block): measured in a fresh import of its core.
const hljsLoad = cpuMs(() => {
  renderMarkdown("```ts\nconst a = 1;\n```", 80);
});

const incremental = cpuMs(() => {
  const stream = new MarkdownStream();
  for (let at = 0; at < text.length; at += DELTA) {
    stream.append(text.slice(at, at + DELTA));
    stream.render(WIDTH);
  }
  stream.end();
  stream.render(WIDTH);
});

/** The cost of doing `fn(prefix)` after every delta, from SAMPLES prefix lengths (trapezoid sum). */
function wholeTextPerDelta(fn: (prefix: string) => void): number {
  let total = 0;
  let previous = { deltas: 0, cost: 0 };
  for (let s = 1; s <= SAMPLES; s++) {
    const d = Math.round((deltas * s) / SAMPLES);
    const prefix = text.slice(0, d * DELTA);
    const cost = Math.min(
      cpuMs(() => fn(prefix)),
      cpuMs(() => fn(prefix)),
    );
    total += ((cost + previous.cost) / 2) * (d - previous.deltas);
    previous = { deltas: d, cost };
  }
  return total;
}

const wholeRender = wholeTextPerDelta((prefix) => renderMarkdown(prefix, WIDTH));
const wholeLex = wholeTextPerDelta((prefix) => Lexer.lex(prefix));

const rows: Array<[string, number]> = [
  ["mitsu MarkdownStream (incremental)", incremental],
  ["whole text re-rendered per delta (mitsu's renderer)", wholeRender],
  ["whole text re-lexed per delta (marked.lexer only)", wholeLex],
];
console.log(
  `\nbench/markdown: a ${Math.round(SIZE / 1024)} KB answer in ${deltas} deltas of ${DELTA} bytes, drawn at ${WIDTH} columns after each`,
);
for (const [name, ms] of rows) {
  console.log(`  ${name.padEnd(54)} ${ms.toFixed(0).padStart(8)} ms CPU  ×${(ms / incremental).toFixed(1)}`);
}
console.log(
  `  per delta (incremental): ${((incremental / deltas) * 1000).toFixed(0)} µs; highlight.js first load + first block: ${hljsLoad.toFixed(1)} ms`,
);
