import { basename, dirname } from "node:path";
import { relativeInside } from "../fs/real-path.js";
import type { PermissionFacts } from "../loop/tool.js";

/**
 * How a call reads in a rule-like form, for prompts and messages: `Bash(rm -rf build)`, `Edit(src/a.ts)`,
 * `Grep(TODO)`. The argument is what the tool states: its command, its `display`, its first path, its URL.
 */
export function describeToolCall(toolName: string, facts: PermissionFacts): string {
  const argument = facts.command ?? facts.display ?? facts.paths?.[0]?.path ?? facts.url;
  if (typeof argument !== "string") return toolName;
  const oneLine = argument.replace(/\s*\n\s*/g, " ⏎ ");
  return `${toolName}(${oneLine.length > 200 ? `${oneLine.slice(0, 200)}…` : oneLine})`;
}

/** Programs whose first argument is a subcommand worth keeping in a suggested prefix (`git push`, `npm test`). */
const SUBCOMMAND_PROGRAMS = new Set([
  "bun",
  "cargo",
  "deno",
  "docker",
  "gh",
  "git",
  "go",
  "kubectl",
  "npm",
  "npx",
  "pip",
  "pnpm",
  "poetry",
  "uv",
  "yarn",
]);

/**
 * A prefix rule that would allow one simple command and its variants: `Bash(rm:*)` for `rm -rf build`,
 * `Bash(git push:*)`, `Bash(npm run test:*)`.
 */
export function suggestBashRule(words: string[]): string | undefined {
  const first = words[0];
  if (first === undefined || /[()]/.test(first)) return undefined;
  const prefix = [first];
  const second = words[1];
  if (SUBCOMMAND_PROGRAMS.has(first) && second !== undefined && /^[A-Za-z0-9][\w:.-]*$/.test(second)) {
    prefix.push(second);
    const third = words[2];
    if (second === "run" && third !== undefined && /^[A-Za-z0-9][\w:.-]*$/.test(third)) prefix.push(third);
  }
  return `Bash(${prefix.join(" ")}:*)`;
}

/**
 * A rule for the folder of a file: `Edit(./src/**)`, or `Edit(//abs/dir/**)` outside the working folder. A file
 * in the working folder itself gets its own rule (`Edit(./notes.txt)`): the folder's would be `./**`, every file
 * of the project, far wider than the call it answers.
 */
export function suggestFileRule(ruleName: string, path: string, cwd: string): string {
  const folder = dirname(path);
  const rel = relativeInside(cwd, folder);
  if (rel === "") {
    const name = basename(path);
    // A name a rule pattern would read as a glob or escape keeps the folder rule rather than a wrong one.
    return /^[\w.-]+$/.test(name) && !name.startsWith("!") ? `${ruleName}(./${name})` : `${ruleName}(./**)`;
  }
  if (rel !== undefined) return `${ruleName}(./${rel}/**)`;
  return `${ruleName}(/${folder}/**)`;
}
