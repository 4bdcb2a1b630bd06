import { describe, expect, it } from "vitest";
import type { Tool } from "../loop/tool.js";
import { createPermissionChecker, type PermissionRequest } from "./permission-checker.js";
import { parsePermissionRule } from "./permission-rule.js";

/** Like an MCP tool (src/mcp/mcp-tool.ts): its permission facts show the input as JSON. */
const tool = (name: string, readOnly = false) =>
  ({
    name,
    description: "",
    inputSchema: {},
    readOnly,
    run: async () => "",
    permissionFacts: (input: Record<string, unknown>) =>
      JSON.stringify(input) === "{}" ? {} : { display: JSON.stringify(input) },
  }) as unknown as Tool<never>;
const ctx = { toolUseId: "toolu_1", signal: new AbortController().signal };
const origin = { source: "/p/.mitsu/settings.json", root: "/p", home: "/home/u" };

function checker(
  spec: { allow?: string[]; deny?: string[]; ask?: string[]; mode?: "default" | "plan" } = {},
) {
  const parse = (list: string[] = []) => list.map((text) => parsePermissionRule(text, origin));
  return createPermissionChecker({
    rules: { allow: parse(spec.allow), ask: parse(spec.ask), deny: parse(spec.deny) },
    mode: spec.mode ?? "default",
    cwd: "/p",
  });
}

const create = tool("mcp__github__create_issue");
const list = tool("mcp__github__list_issues", true);
const other = tool("mcp__github_enterprise__create_issue");

describe("permission rules for MCP tools", () => {
  it("ask by default, so print mode denies, saying which rule would allow the call", async () => {
    const decision = await checker()(create, { title: "Bug" }, ctx);
    expect(decision).toEqual({
      behavior: "deny",
      message: expect.stringContaining(
        'Permission to use mcp__github__create_issue({"title":"Bug"}) was denied: mitsu is running without a terminal to ask. To allow it, add "mcp__github__create_issue" to permissions.allow',
      ),
    });
  });

  it("mcp__server, mcp__server__* and mcp__server__tool allow; another server's tools stay asked", async () => {
    for (const rule of ["mcp__github", "mcp__github__*"]) {
      const check = checker({ allow: [rule] });
      expect(await check(create, {}, ctx)).toEqual({ behavior: "allow" });
      expect(await check(list, {}, ctx)).toEqual({ behavior: "allow" });
      expect((await check(other, {}, ctx)).behavior).toBe("deny");
    }
    const one = checker({ allow: ["mcp__github__list_issues"] });
    expect(await one(list, {}, ctx)).toEqual({ behavior: "allow" });
    expect((await one(create, {}, ctx)).behavior).toBe("deny");
  });

  it("a deny rule for the server wins over an allow rule for one of its tools", async () => {
    const check = checker({ allow: ["mcp__github__list_issues"], deny: ["mcp__github"] });
    expect(await check(list, {}, ctx)).toEqual({
      behavior: "deny",
      message: expect.stringContaining('was denied by the rule "mcp__github"'),
    });
  });

  it("plan mode allows only the tools annotated readOnlyHint", async () => {
    const check = checker({ mode: "plan", allow: ["mcp__github"] });
    expect(await check(list, {}, ctx)).toEqual({ behavior: "allow" });
    expect(await check(create, {}, ctx)).toMatchObject({
      behavior: "deny",
      message: expect.stringContaining("plan mode"),
    });
  });

  it("the question shows the call's input and offers the tool's own rule", async () => {
    const asked: PermissionRequest[] = [];
    const check = createPermissionChecker({
      rules: { allow: [], ask: [], deny: [] },
      mode: "default",
      cwd: "/p",
      ask: async (request) => {
        asked.push(request);
        return "allow_always";
      },
    });
    await check(create, { title: "Bug", body: "x" }, ctx);
    expect(asked[0]).toMatchObject({
      display: 'mcp__github__create_issue({"title":"Bug","body":"x"})',
      suggestedRules: ["mcp__github__create_issue"],
    });
    expect(await check(create, { title: "Other" }, ctx)).toEqual({ behavior: "allow" });
  });

  it("reading MCP resources needs no question (they are read-only)", async () => {
    const check = checker();
    expect(await check(tool("ListMcpResources", true), {}, ctx)).toEqual({ behavior: "allow" });
    expect(await check(tool("ReadMcpResource", true), { server: "s", uri: "x://y" }, ctx)).toEqual({
      behavior: "allow",
    });
  });
});
