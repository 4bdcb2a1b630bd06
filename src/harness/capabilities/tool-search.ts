import type { ReminderSource } from "../../context/index.js";
import { type Tool, toToolDefinition } from "../../loop/tool.js";
import { createToolSearchTool } from "../../tools/tool-search-tool.js";
import { type Capability, toolsOf } from "../capability.js";

/** Above this share of the context window, MCP tool definitions are deferred (`MITSU_TOOL_SEARCH=auto`). */
export const DEFAULT_TOOL_SEARCH_SHARE = 0.1;

/**
 * When tools are deferred, from `MITSU_TOOL_SEARCH` (or Claude Code's `ENABLE_TOOL_SEARCH`): `auto` (default:
 * above 10% of the window), `auto:N` (above N%), `true` (always), `false` (never). The share, 0 for always,
 * undefined for never.
 */
export function toolSearchShare(env: Record<string, string | undefined>): number | undefined {
  const value = (env.MITSU_TOOL_SEARCH ?? env.ENABLE_TOOL_SEARCH ?? "auto").trim().toLowerCase();
  if (/^(false|0|off|no)$/.test(value)) return undefined;
  if (/^(true|1|on|yes)$/.test(value)) return 0;
  const percent = /^auto:(\d+(?:\.\d+)?)$/.exec(value);
  if (percent) return Number(percent[1]) / 100;
  return DEFAULT_TOOL_SEARCH_SHARE;
}

/** A rough token count of tool definitions (JSON characters / 4), as the decision needs no more. */
export function definitionTokens(tools: readonly Tool<never>[]): number {
  return Math.ceil(JSON.stringify(tools.map((t) => toToolDefinition(t))).length / 4);
}

/**
 * Large tool sets: wraps the MCP capability so that, when its tools' definitions would take more than `share` of
 * the context window, they are not sent. They stay callable by name (each call validated against its schema and
 * run as usual); a `ToolSearch` tool — the one definition sent in their place — returns the schemas of those
 * the model asks for, and a reminder in the first user message lists their names and one-line descriptions.
 * Decided once, at the first read of the tools after start-up, so `tools` never changes mid-session and every
 * request extends the previous one (a server's changed list changes only what ToolSearch finds).
 */
export function withToolSearch(
  inner: Capability,
  contextWindow: number,
  env: Record<string, string | undefined>,
): Capability & { readonly deferring: boolean | undefined } {
  let deferring: boolean | undefined;
  const share = toolSearchShare(env);
  // The servers' own tools (`mcp__server__tool`); the resource tools stay loaded.
  const deferrable = () => toolsOf(inner).filter((tool) => tool.name.startsWith("mcp__"));
  const loaded = () => toolsOf(inner).filter((tool) => !tool.name.startsWith("mcp__"));
  const deferredTools = () =>
    deferrable().map((tool) => Object.assign(Object.create(tool) as Tool<never>, { deferred: true }));
  const search = createToolSearchTool(deferrable) as unknown as Tool<never>;
  const decide = (): boolean => {
    if (deferring !== undefined) return deferring;
    const tools = deferrable();
    deferring = share !== undefined && tools.length > 0 && definitionTokens(tools) > share * contextWindow;
    return deferring;
  };
  let listed = false;
  const listing: ReminderSource = {
    name: "deferred-tools",
    // Once per conversation: its first user message (a new one after /clear), or the first request of a resumed
    // one (the engine drops it if the transcript already holds it), and again after compaction (`reset`).
    collect: (state) => {
      if (!decide() || (listed && !state.firstUserMessage)) return undefined;
      listed = true;
      return deferredListing(deferrable(), LISTING_SHARE * contextWindow * 4);
    },
    reset: () => {
      listed = false;
    },
  };
  return {
    ...inner,
    name: inner.name,
    get deferring() {
      return deferring;
    },
    tools: () => (decide() ? [...loaded(), ...deferredTools(), search] : toolsOf(inner)),
    reminders: [...(inner.reminders ?? []), listing],
  };
}

/** The most of the window the listing of deferred tools takes with their descriptions (beyond it: names only). */
const LISTING_SHARE = 0.05;

/**
 * The reminder that names the deferred tools, one line each: `name: one-line description`, or the names alone
 * when that would pass `maxChars` (thousands of tools: their descriptions would fill the window themselves).
 */
export function deferredListing(tools: readonly Tool<never>[], maxChars = Number.POSITIVE_INFINITY): string {
  const head =
    'These tools are available but not loaded: call ToolSearch ("select:<name>" or keywords) to get a tool\'s definition before you call it.';
  const described = tools.map((tool) => `${tool.name}: ${oneLine(tool.description)}`);
  const chars = described.reduce((n, line) => n + line.length + 1, 0);
  if (chars <= maxChars) return `${head}\n${described.join("\n")}`;
  return `${head} (Names only: search by keywords to find a tool by what it does.)\n${tools.map((t) => t.name).join("\n")}`;
}

function oneLine(description: string): string {
  const first = description.split("\n")[0]?.trim() ?? "";
  const sentence = /^(.{20,}?[.!?])\s/.exec(`${first} `)?.[1] ?? first;
  return sentence.length > 100 ? `${sentence.slice(0, 99)}…` : sentence;
}
