import { describe, expect, it } from "vitest";
import type { Tool } from "../../loop/tool.js";
import { searchTools } from "../../tools/tool-search-tool.js";
import { deferredListing, toolSearchShare } from "./tool-search.js";

const tool = (name: string, description: string) =>
  ({ name, description, inputSchema: { type: "object" }, run: async () => "" }) as unknown as Tool<never>;
const tools = [
  tool("mcp__gh__create_issue", "Creates an issue in a GitHub repository. Needs a title."),
  tool("mcp__gh__list_issues", "Lists the issues of a repository."),
  tool("mcp__slack__send_message", "Sends a message to a Slack channel.\nMore text."),
];

describe("tool search", () => {
  it("MITSU_TOOL_SEARCH / ENABLE_TOOL_SEARCH: auto (10%), auto:N, true, false", () => {
    expect(toolSearchShare({})).toBe(0.1);
    expect(toolSearchShare({ MITSU_TOOL_SEARCH: "auto:5" })).toBe(0.05);
    expect(toolSearchShare({ ENABLE_TOOL_SEARCH: "true" })).toBe(0);
    expect(toolSearchShare({ MITSU_TOOL_SEARCH: "false", ENABLE_TOOL_SEARCH: "true" })).toBeUndefined();
  });

  it("finds by exact names (select:) in order, or by keywords, best first", () => {
    const names = (q: string) => searchTools(tools, q).map((t) => t.name);
    expect(names("select:mcp__slack__send_message, mcp__gh__create_issue")).toEqual([
      "mcp__slack__send_message",
      "mcp__gh__create_issue",
    ]);
    expect(names("slack message")).toEqual(["mcp__slack__send_message"]);
    expect(names("issue")[0]).toBe("mcp__gh__create_issue");
    expect(names("list issues")[0]).toBe("mcp__gh__list_issues");
    expect(names("weather")).toEqual([]);
  });

  it("lists each tool with the first sentence of its description, or the names alone past the budget", () => {
    const full = deferredListing(tools);
    expect(full).toContain("mcp__gh__create_issue: Creates an issue in a GitHub repository.\n");
    expect(full).toContain("mcp__slack__send_message: Sends a message to a Slack channel.");
    expect(full).not.toContain("More text");
    const short = deferredListing(tools, 100);
    expect(short).toContain("Names only");
    expect(short.endsWith("\nmcp__gh__create_issue\nmcp__gh__list_issues\nmcp__slack__send_message")).toBe(
      true,
    );
  });
});
