import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { collect, resultsOf, sdkWorld } from "./sdk-harness.js";

/** The tool results the model was sent in the last request, as text. */
function lastToolResults(body: { messages: Array<{ content: unknown }> }): string {
  return JSON.stringify(body.messages.at(-1)?.content);
}

describe("the Claude Agent SDK's query() driving mitsu: permissions, hooks, in-process MCP tools", () => {
  it("canUseTool decides what the rules leave open: allow with updatedInput runs the new input, deny's message goes to the model", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "Bash", input: { command: "sleep 0; echo one" } }] },
      { content: [{ type: "tool_use", name: "Bash", input: { command: "touch nope" } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const asked: string[] = [];
    const messages = await collect(
      query({
        prompt: "go",
        options: world.options({
          canUseTool: async (name, input, { toolUseID }) => {
            asked.push(`${name} ${String(input.command)}`);
            expect(toolUseID).toMatch(/^toolu_/);
            return input.command === "sleep 0; echo one"
              ? { behavior: "allow", updatedInput: { command: "echo two" } }
              : { behavior: "deny", message: "not in this workspace" };
          },
        }),
      }),
    );
    expect(asked).toEqual(["Bash sleep 0; echo one", "Bash touch nope"]);
    expect(lastToolResults(world.sim.requests[1]?.body)).toContain("two");
    expect(lastToolResults(world.sim.requests[2]?.body)).toContain("not in this workspace");
    const [result] = resultsOf(messages);
    expect(result).toMatchObject({ subtype: "success", result: "done", is_error: false });
    expect(result?.permission_denials).toEqual([
      {
        tool_name: "Bash",
        tool_use_id: expect.stringMatching(/^toolu_/),
        tool_input: { command: "touch nope" },
      },
    ]);
  });

  it("rules come first: an allow rule runs without asking, a deny rule denies without asking", async () => {
    const world = await sdkWorld([
      {
        content: [
          { type: "tool_use", name: "Bash", input: { command: "echo allowed" } },
          { type: "tool_use", name: "Bash", input: { command: "rm -rf build" } },
        ],
      },
      { content: [{ type: "text", text: "ok" }] },
    ]);
    let asked = 0;
    const messages = await collect(
      query({
        prompt: "go",
        options: world.options({
          allowedTools: ["Bash(echo:*)"],
          disallowedTools: ["Bash(rm:*)"],
          canUseTool: async () => {
            asked++;
            return { behavior: "allow" };
          },
        }),
      }),
    );
    expect(asked).toBe(0);
    const sent = lastToolResults(world.sim.requests[1]?.body);
    expect(sent).toContain("allowed");
    expect(resultsOf(messages)[0]?.permission_denials.map((d) => d.tool_input)).toEqual([
      { command: "rm -rf build" },
    ]);
  });

  it("hooks: a PreToolUse callback blocks a call, a PostToolUse callback adds context to the result", async () => {
    const world = await sdkWorld([
      {
        content: [
          { type: "tool_use", name: "Bash", input: { command: "echo blocked" } },
          { type: "tool_use", name: "Read", input: { file_path: "notes.txt" } },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${world.cwd}/notes.txt`, "the notes\n");
    const seen: string[] = [];
    await collect(
      query({
        prompt: "go",
        options: world.options({
          hooks: {
            PreToolUse: [
              {
                matcher: "Bash",
                hooks: [
                  async (input) => {
                    seen.push(`${input.hook_event_name}`);
                    return {
                      hookSpecificOutput: {
                        hookEventName: "PreToolUse",
                        permissionDecision: "deny",
                        permissionDecisionReason: "Bash is off today",
                      },
                    };
                  },
                ],
              },
            ],
            PostToolUse: [
              {
                matcher: "Read",
                hooks: [
                  async (input) => {
                    seen.push(`${input.hook_event_name} ${"tool_name" in input ? input.tool_name : ""}`);
                    return {
                      hookSpecificOutput: {
                        hookEventName: "PostToolUse",
                        additionalContext: "checked by the app",
                      },
                    };
                  },
                ],
              },
            ],
          },
        }),
      }),
    );
    expect(seen).toEqual(["PreToolUse", "PostToolUse Read"]);
    const sent = lastToolResults(world.sim.requests[1]?.body);
    expect(sent).toContain("Bash is off today");
    expect(sent).toContain("the notes");
    expect(sent).toContain("checked by the app");
  });

  it("an in-process SDK MCP server's tool is a tool of mitsu's, called through the app", async () => {
    const world = await sdkWorld([
      { content: [{ type: "tool_use", name: "mcp__calc__add", input: { a: 2, b: 40 } }] },
      { content: [{ type: "text", text: "42" }] },
    ]);
    const calls: number[][] = [];
    const calc = createSdkMcpServer({
      name: "calc",
      version: "1.0.0",
      tools: [
        tool("add", "Adds two numbers", { a: z.number(), b: z.number() }, async ({ a, b }) => {
          calls.push([a, b]);
          return { content: [{ type: "text", text: String(a + b) }] };
        }),
      ],
    });
    const messages = await collect(
      query({
        prompt: "add",
        options: world.options({ mcpServers: { calc }, allowedTools: ["mcp__calc__add"] }),
      }),
    );
    expect(calls).toEqual([[2, 40]]);
    const init = messages.find((m) => m.type === "system" && m.subtype === "init");
    expect(init).toMatchObject({ mcp_servers: [{ name: "calc", status: "connected" }] });
    expect(init && "tools" in init ? init.tools : []).toContain("mcp__calc__add");
    expect(world.sim.requests[0]?.body.tools.map((t: { name: string }) => t.name)).toContain(
      "mcp__calc__add",
    );
    expect(lastToolResults(world.sim.requests[1]?.body)).toContain("42");
    expect(resultsOf(messages)[0]).toMatchObject({ subtype: "success", result: "42" });
  });
});
