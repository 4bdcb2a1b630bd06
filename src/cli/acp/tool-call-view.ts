import { readFileSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { Tool } from "../../loop/tool.js";
import type { ToolUseBlock } from "../../messages/index.js";

/** What an editor shows of a tool call: ACP's `title`, `kind`, `locations` and `content`. */
export interface ToolCallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  content: ToolCallContent[];
}

/** Largest file read (from disk, inside the workspace) to show an Edit or a Write as a whole-file diff. */
const DIFF_FILE_BYTES = 1024 * 1024;

const KINDS: Record<string, ToolKind> = {
  Read: "read",
  ReadMcpResource: "read",
  Write: "edit",
  Edit: "edit",
  Bash: "execute",
  BashOutput: "execute",
  KillShell: "execute",
  Grep: "search",
  Glob: "search",
  ListMcpResources: "search",
  WebSearch: "search",
  WebFetch: "fetch",
  TodoWrite: "think",
  Task: "think",
};

/** ACP's kind of a call: by tool, and for Bash by what the command is (`rm` deletes, `mv` moves). */
export function toolKind(name: string, input: Record<string, unknown>): ToolKind {
  if (name === "Bash" && typeof input.command === "string") {
    const first = input.command.trim().split(/\s+/)[0];
    if (first === "rm" || first === "rmdir") return "delete";
    if (first === "mv") return "move";
  }
  return KINDS[name] ?? "other";
}

/**
 * The call as an editor shows it. `inside` says whether a path may be read from disk for a diff (the workspace:
 * nothing else is opened). Never throws: what cannot be read is shown without it.
 */
export function toolCallView(
  block: ToolUseBlock,
  tool: Tool<never> | undefined,
  options: { cwd: string; summary: string; inside: (path: string) => boolean },
): ToolCallView {
  const input = (block.input ?? {}) as Record<string, unknown>;
  const kind = toolKind(block.name, input);
  const locations: ToolCallLocation[] = [];
  for (const { path } of factsOf(tool, input)) {
    if (typeof path !== "string" || path === "") continue;
    locations.push({ path: absolute(path, options.cwd) });
  }
  const content: ToolCallContent[] = [];
  const filePath = typeof input.file_path === "string" ? absolute(input.file_path, options.cwd) : undefined;
  if (block.name === "Read" && filePath && typeof input.offset === "number" && locations[0]) {
    locations[0].line = Math.max(1, input.offset);
  }
  if (block.name === "Edit" && filePath) {
    const oldString = String(input.old_string ?? "");
    const newString = String(input.new_string ?? "");
    const before = readSmall(filePath, options.inside);
    const at = before === undefined || oldString === "" ? -1 : before.indexOf(oldString);
    if (before !== undefined && at !== -1) {
      const after =
        input.replace_all === true
          ? before.split(oldString).join(newString)
          : before.slice(0, at) + newString + before.slice(at + oldString.length);
      content.push({ type: "diff", path: filePath, oldText: before, newText: after });
      if (locations[0]) locations[0].line = lineOf(before, at);
    } else {
      content.push({
        type: "diff",
        path: filePath,
        oldText: oldString === "" ? null : oldString,
        newText: newString,
      });
    }
  }
  if (block.name === "Write" && filePath && typeof input.content === "string") {
    content.push({
      type: "diff",
      path: filePath,
      oldText: readSmall(filePath, options.inside) ?? null,
      newText: input.content,
    });
  }
  if (block.name === "Task" && typeof input.prompt === "string") {
    content.push({ type: "content", content: { type: "text", text: input.prompt } });
  }
  return { title: options.summary || block.name, kind, locations, content };
}

function factsOf(tool: Tool<never> | undefined, input: Record<string, unknown>) {
  try {
    return (
      (
        tool?.permissionFacts as ((i: Record<string, unknown>) => { paths?: { path: string }[] }) | undefined
      )?.(input)?.paths ?? []
    );
  } catch {
    return [];
  }
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A text file's content when it is inside the workspace and small; undefined otherwise. */
function readSmall(path: string, inside: (path: string) => boolean): string | undefined {
  try {
    if (!inside(path)) return undefined;
    const stats = statSync(path);
    if (!stats.isFile() || stats.size > DIFF_FILE_BYTES) return undefined;
    const text = readFileSync(path, "utf8");
    return text.includes("\0") ? undefined : text;
  } catch {
    return undefined;
  }
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
