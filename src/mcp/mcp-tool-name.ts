import { createHash } from "node:crypto";

/** The providers' tool name pattern (Anthropic, OpenAI and Gemini all accept it). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;
/** A server part longer than this is shortened, so that even a long server name leaves room for the tool's. */
const MAX_SERVER_PART = 24;

/**
 * The server part of `mcp__<server>__<tool>`: characters outside `[a-zA-Z0-9_-]` become `_`, runs of `_` become
 * one and leading or trailing `_` go, so the part never holds `__` (the separator that permission rules such
 * as `mcp__server` rely on: `mcp__a` must not cover the tools of a server `a__b`). Long names are shortened with
 * a hash of the original name.
 */
export function mcpServerPart(server: string): string {
  let part = server
    .replace(/[^a-zA-Z0-9_-]/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (part === "") part = `server_${shortHash(server)}`;
  if (part.length > MAX_SERVER_PART)
    part = `${part.slice(0, MAX_SERVER_PART - 9).replace(/_+$/, "")}_${shortHash(server)}`;
  return part;
}

/**
 * `mcp__<server>__<tool>`, valid for every provider: characters outside `[a-zA-Z0-9_-]` become `_`; a name over
 * 64 characters keeps its `mcp__<server>__` prefix and the start of the tool's name, and ends with `_` and an
 * 8-character hash of the original server and tool names, so the same tool gets the same name on every run.
 */
export function mcpToolName(server: string, tool: string): string {
  return mcpToolNameWithPart(mcpServerPart(server), server, tool);
}

/** `mcpToolName` with the server part given (one `assignServerParts` made unique among the servers). */
export function mcpToolNameWithPart(serverPart: string, server: string, tool: string): string {
  const prefix = `mcp__${serverPart}__`;
  const part = tool.replace(/[^a-zA-Z0-9_-]/g, "_") || "_";
  const full = `${prefix}${part}`;
  if (full.length <= MAX_NAME) return full;
  return `${full.slice(0, MAX_NAME - 9)}_${shortHash(`${server}\u0000${tool}`)}`;
}

/** A second name for a tool whose name another tool already has: the prefix, shortened, and its own hash. */
export function disambiguatedName(name: string, server: string, tool: string, attempt = 0): string {
  const suffix = `_${shortHash(`${server}\u0000${tool}\u0000collision${attempt === 0 ? "" : `\u0000${attempt}`}`)}`;
  return `${name.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}

/**
 * The server part for a server whose plain part another server has: the part, shortened, `_` and a hash of the
 * server's name (`attempt` > 0 when even that is taken, by a server named like it on purpose).
 */
export function secondServerPart(server: string, attempt = 0): string {
  const base =
    mcpServerPart(server)
      .slice(0, MAX_SERVER_PART - 9)
      .replace(/_+$/, "") || "server";
  return `${base}_${shortHash(attempt === 0 ? server : `${server}\u0000${attempt}`)}`;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 8);
}
