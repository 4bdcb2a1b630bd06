import type { Ignore } from "ignore";
import { parse } from "shell-quote";
import { lazyRequire } from "../fs/lazy-require.js";
import { relativeInside } from "../fs/real-path.js";

// Loaded with the first file rule: a session whose rules name no files never loads it.
const ignoreFactory = lazyRequire<typeof import("ignore")>("ignore");

export type RuleBehavior = "allow" | "ask" | "deny";

/** Where a rule came from, for error messages and for resolving its relative paths. */
export interface RuleOrigin {
  /** e.g. `/p/.mitsu/settings.json`, `--allowedTools`, or `session` (allowed "always" at a prompt). */
  source: string;
  /** The folder `./` and `/` refer to in file rules: the project root that holds `.mitsu/`, or the cwd. */
  root: string;
  /** The folder `~/` refers to. */
  home: string;
}

/**
 * One parsed rule: `Tool`, `Tool(specifier)`, `mcp__server` or `mcp__server__tool`.
 * - File rules (`Read`, `Edit`, `Write`) take gitignore-style globs: `./x` and `x` and `/x` are relative to
 *   the origin's root (as in Claude Code, a single `/` is NOT the filesystem root), `//x` is absolute,
 *   `~/x` is in the home folder. `Edit(…)` covers every file-editing tool (Edit and Write); `Read(…)` covers
 *   Read, and Grep and Glob by their search path (best effort: a search of a parent folder is not seen
 *   as touching a denied file below it).
 * - `Bash(cmd)` matches one command exactly; `Bash(prefix:*)` matches it and what extends it by whole words,
 *   or its last word by a `:` suffix (`Bash(npm run test:*)` covers `npm run test:unit`, not `npm run testing`);
 *   other `*` are wildcards. They are matched against each simple command of a compound line. A rule without
 *   `*` also matches a whole line that is exactly its text (what "always" saves for a loop or a pipeline:
 *   `Bash(for f in a b; do rm $f; done)`).
 * - `WebFetch(domain:example.com)` matches that host; `WebFetch(domain:*.example.com)` matches its subdomains
 *   (not the bare domain). Hosts compare without case and without a trailing dot.
 */
export interface PermissionRule {
  /** The rule as written. */
  text: string;
  toolName: string;
  specifier?: string;
  origin: RuleOrigin;
  /** Compiled file glob (file rules only): gitignore-style `pattern` relative to `base`. */
  files?: { base: string; pattern: string; matcher: Ignore };
  /** Compiled Bash matcher (Bash rules only). */
  command?: (words: string[]) => boolean;
  /** Bash rules without `*`: the exact command line (trimmed) the rule also allows as a whole. */
  line?: string;
}

/** A rule that cannot be parsed; the message names the rule and where it was written. */
export class PermissionRuleError extends Error {
  override name = "PermissionRuleError";
}

/**
 * A tool name; `mcp__server__*` for all of a server's tools; `mcp__*` for every MCP tool; `mcp__server__pre*`
 * for a server's tools whose names start so (forms found in Claude Code settings).
 */
const TOOL_NAME = /^([A-Za-z_][A-Za-z0-9_-]*|mcp__\*|mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]*\*)$/;
export const FILE_RULE_TOOLS = new Set(["Read", "Edit", "Write"]);

/** Parses a rule; `where` says where it was written (e.g. `permissions.allow[2] in /p/.mitsu/settings.json`). */
export function parsePermissionRule(text: string, origin: RuleOrigin, where = origin.source): PermissionRule {
  const fail = (why: string): never => {
    throw new PermissionRuleError(`Invalid permission rule ${JSON.stringify(text)} (${where}): ${why}`);
  };
  const trimmed = text.trim();
  if (trimmed === "") fail("it is empty");
  const open = trimmed.indexOf("(");
  const toolName = open === -1 ? trimmed : trimmed.slice(0, open);
  if (!TOOL_NAME.test(toolName)) {
    fail(
      `${JSON.stringify(toolName)} is not a tool name (expected e.g. Read, Bash(npm test:*), mcp__server__tool)`,
    );
  }
  const rule: PermissionRule = { text: trimmed, toolName, origin };
  if (open === -1) return rule;
  if (!trimmed.endsWith(")")) fail('it has no closing ")"');
  const specifier = trimmed.slice(open + 1, -1).trim();
  if (specifier === "") fail(`the parentheses are empty; write ${toolName} alone to match every call`);
  if (toolName.startsWith("mcp__"))
    fail("MCP rules take no parentheses: write mcp__server or mcp__server__tool");
  rule.specifier = specifier;
  if (specifier === "*") return rule;
  if (FILE_RULE_TOOLS.has(toolName)) rule.files = compileFileGlob(specifier, origin);
  else if (toolName === "Bash") {
    rule.command = compileCommandPattern(specifier, fail);
    if (!specifier.includes("*")) rule.line = specifier;
  }
  return rule;
}

function compileFileGlob(
  specifier: string,
  origin: RuleOrigin,
): { base: string; pattern: string; matcher: Ignore } {
  let base = origin.root;
  let pattern = specifier;
  if (specifier.startsWith("//")) {
    base = "/";
    pattern = specifier.slice(1);
  } else if (specifier === "~" || specifier.startsWith("~/")) {
    base = origin.home;
    pattern = `/${specifier.slice(2)}`;
  } else if (specifier.startsWith("./")) {
    pattern = `/${specifier.slice(2)}`;
  }
  if (pattern === "/" || pattern === "") pattern = "**";
  return { base, pattern, matcher: ignoreFactory()().add(pattern) };
}

function compileCommandPattern(
  specifier: string,
  fail: (why: string) => never,
): (words: string[]) => boolean {
  if (specifier.endsWith(":*")) {
    const prefix = words(specifier.slice(0, -2), fail);
    if (prefix.length === 0) fail('":*" needs a command before it, e.g. Bash(npm run test:*)');
    // The last word may go on after a ":" (npm script namespaces): `npm run test:*` covers `test:unit`.
    const last = prefix.length - 1;
    return (command) =>
      prefix.length <= command.length &&
      prefix.every(
        (word, i) => command[i] === word || (i === last && command[i]?.startsWith(`${word}:`) === true),
      );
  }
  if (specifier.includes("*")) {
    const escaped = specifier.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const pattern = new RegExp(`^${escaped.join(".*")}$`, "s");
    return (command) => pattern.test(command.join(" "));
  }
  const exact = words(specifier, fail);
  return (command) => exact.length === command.length && exact.every((word, i) => command[i] === word);
}

function words(text: string, fail: (why: string) => never): string[] {
  const tokens = parse(text, (name) => `$${name}`);
  return tokens.map((token) => {
    if (typeof token === "string") return token;
    if (!("op" in token)) return fail("comments are not allowed in a Bash rule");
    const { op, pattern } = token as { op: string; pattern?: string };
    return op === "glob" ? (pattern ?? "*") : op;
  });
}

/**
 * Whether a rule's name covers a call of `toolName` whose stated file access (its permission facts) is
 * `access`: its own name; `Edit` any call that writes files; `Read` any call that only reads them.
 */
export function ruleAppliesToTool(
  rule: PermissionRule,
  toolName: string,
  access?: "read" | "write",
): boolean {
  if (rule.toolName === toolName) return true;
  // `Edit(...)` rules cover every call that states it writes files (Write too); `Read(...)` every call that
  // states it only reads them (Grep, Glob): the tool's permission facts say which, not its name.
  if (rule.toolName === "Edit") return access === "write";
  if (rule.toolName === "Read") return access === "read";
  // `mcp__server` (and `mcp__server__*`) cover every tool of that server; `mcp__*` every MCP tool.
  if (rule.toolName.startsWith("mcp__") && toolName.startsWith("mcp__")) {
    if (rule.toolName === "mcp__*") return true;
    if (/__[A-Za-z0-9_-]+\*$/.test(rule.toolName)) return toolName.startsWith(rule.toolName.slice(0, -1));
    const server = rule.toolName.replace(/__\*$/, "");
    return server.split("__").length === 2 && toolName.startsWith(`${server}__`);
  }
  return false;
}

/**
 * Whether a file rule covers one of a call's paths. `path` is absolute; `realBase` is the rule's base with
 * links resolved (so a rule for `./src/**` also covers the real path of a file under a linked project root).
 */
export function fileRuleMatches(rule: PermissionRule, path: string, realBase?: string): boolean {
  if (!rule.files) return true;
  const files = rule.files;
  const test = (base: string) => {
    const rel = relativeInside(base, path);
    return rel !== undefined && rel !== "" && files.matcher.ignores(rel);
  };
  return test(files.base) || (realBase !== undefined && realBase !== files.base && test(realBase));
}

/** Whether a WebFetch rule (`domain:host`) covers a URL. */
export function urlRuleMatches(rule: PermissionRule, url: unknown): boolean {
  if (!rule.specifier) return true;
  if (!rule.specifier.startsWith("domain:") || typeof url !== "string") return false;
  const wanted = normalHost(rule.specifier.slice("domain:".length));
  let host: string;
  try {
    host = normalHost(new URL(url).hostname);
  } catch {
    return false;
  }
  if (wanted.startsWith("*.")) return host.endsWith(wanted.slice(1)) && host.length > wanted.length - 1;
  return host === wanted;
}

function normalHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, "");
}
