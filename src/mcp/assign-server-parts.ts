import { compareNames } from "./load-mcp-config.js";
import type { McpScope } from "./mcp-server-config.js";
import { mcpServerPart, secondServerPart } from "./mcp-tool-name.js";

/** Which server keeps a plain part when two share it: the user's own first, then the command line's, then an installed plugin's (the user approved it), then a project's. */
const SCOPE_RANK: Record<McpScope, number> = { user: 0, cli: 1, plugin: 2, project: 3 };

/** A server that could not have its plain part, for a warning. */
export interface RenamedServer {
  server: string;
  /** The part it would have had, which `holder` has. */
  plain: string;
  holder: string;
  /** The part it has. */
  part: string;
}

/**
 * The server part of `mcp__<part>__<tool>` for each server, unique among them. Normalisation maps several names
 * to one part (`github`, `github.`, `.github`), and a permission rule `mcp__github` covers every tool whose name
 * starts with `mcp__github__`: were two servers to share a part, a rule written for one would cover the other's
 * tools. So the part is per server: the first by scope (user, command line, project), then by name, keeps the
 * plain part; each other gets `secondServerPart`, which no rule for the first covers.
 */
export function assignServerParts(servers: ReadonlyArray<{ name: string; scope: McpScope }>): {
  parts: Map<string, string>;
  renamed: RenamedServer[];
} {
  const ordered = [...servers].sort(
    (a, b) => SCOPE_RANK[a.scope] - SCOPE_RANK[b.scope] || compareNames(a.name, b.name),
  );
  const parts = new Map<string, string>();
  const holders = new Map<string, string>();
  const renamed: RenamedServer[] = [];
  for (const { name } of ordered) {
    const plain = mcpServerPart(name);
    let part = plain;
    for (let attempt = 0; holders.has(part); attempt++) part = secondServerPart(name, attempt);
    if (part !== plain) renamed.push({ server: name, plain, holder: holders.get(plain) ?? "", part });
    holders.set(part, name);
    parts.set(name, part);
  }
  return { parts, renamed };
}
