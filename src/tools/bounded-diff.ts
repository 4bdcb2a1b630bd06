import { lazyRequire } from "../fs/lazy-require.js";
import { truncateOutput } from "./truncate-output.js";

// Loaded on first use: diff costs tens of milliseconds to load, and most runs edit nothing.
const diffLib = lazyRequire<typeof import("diff")>("diff");

export interface BoundedDiffOptions {
  /** Characters of diff kept (head and tail). */
  maxChars: number;
  /** Milliseconds the diff may take; past it a summary replaces the diff. Default 500. */
  timeoutMs?: number;
  /** Most lines added plus removed that the diff will search for; more gives the summary. Default 5 000. */
  maxEditLength?: number;
}

export const DIFF_TIMEOUT_MS = 500;
export const DIFF_MAX_EDIT_LENGTH = 5_000;

/**
 * A unified diff (`--- a/name`, `+++ b/name`, `@@` hunks with three lines of context) of `before` → `after`,
 * cut to `maxChars`, computed within a budget. Line diffs are quadratic in the number of changed lines (20 000
 * changed lines took a minute, with the event loop blocked and Ctrl-C unanswered), so past `timeoutMs` or
 * `maxEditLength` the result is a one-line summary of the changed region instead, found in linear time.
 */
export function boundedDiff(
  name: string,
  before: string,
  after: string,
  options: BoundedDiffOptions,
): string {
  const patch = diffLib().createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, "", "", {
    context: 3,
    timeout: options.timeoutMs ?? DIFF_TIMEOUT_MS,
    maxEditLength: options.maxEditLength ?? DIFF_MAX_EDIT_LENGTH,
  });
  if (patch === undefined) return summarizeChange(before, after);
  // The first line of createTwoFilesPatch is a "====" separator that says nothing here.
  const body = patch.startsWith("===") ? patch.slice(patch.indexOf("\n") + 1) : patch;
  return truncateOutput(body, options.maxChars).text;
}

/**
 * "lines 12-20011 (20000 lines) replaced by 20000 lines": the span between the longest common first
 * and last lines. Linear in the size of the texts.
 */
export function summarizeChange(before: string, after: string): string {
  const old = before.split("\n");
  const now = after.split("\n");
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  ) {
    tail++;
  }
  const removed = old.length - head - tail;
  const added = now.length - head - tail;
  const span = removed === 1 ? `line ${head + 1}` : `lines ${head + 1}-${head + removed} (${removed} lines)`;
  const what =
    removed === 0
      ? `${plural(added, "line")} inserted after line ${head}`
      : added === 0
        ? `${span} removed`
        : `${span} replaced by ${plural(added, "line")}`;
  return `[The change is too large to show as a diff: ${what}. Read the file to see it.]`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
