import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MITSU_BIN } from "../security/run-bin.js";
import { type Message, startRawClient } from "./raw-client.js";

/**
 * A client written only from the protocol's documentation (agentclientprotocol.com: overview, initialization,
 * session setup, prompt turn, tool calls, content): JSON-RPC 2.0 lines, no SDK.
 */
describe.skipIf(!existsSync(MITSU_BIN))(
  "mitsu acp: a client written from the protocol's documentation",
  () => {
    it("runs a full edit session: prompt, tool call with a diff, permission answered, file written, answer streamed", async () => {
      const permissions: Message[] = [];
      const client = await startRawClient([], (method, params) => {
        if (method === "session/request_permission") {
          permissions.push(params);
          const allow = (params.options as Message[]).find((o) => o.kind === "allow_once");
          return { outcome: { outcome: "selected", optionId: allow?.optionId } };
        }
        throw new Error(`unexpected ${method}`);
      });
      const file = join(client.cwd, "src", "notes.md");
      client.sim.enqueue(
        {
          content: [
            { type: "text", text: "I will write the notes." },
            { type: "tool_use", id: "w", name: "Write", input: { file_path: file, content: "# Notes\n" } },
          ],
        },
        { content: [{ type: "text", text: "The notes are written." }] },
      );

      const init = await client.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "doc-client", version: "0.0.1" },
      });
      expect(init.result.protocolVersion).toBe(1);
      expect(init.result.agentCapabilities).toMatchObject({
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        mcpCapabilities: { http: true },
      });
      expect(init.result.authMethods).toEqual([]);

      const created = await client.request("session/new", { cwd: client.cwd, mcpServers: [] });
      const sessionId = created.result.sessionId as string;
      expect(typeof sessionId).toBe("string");

      const done = await client.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "Write notes" }],
      });
      expect(done.result).toEqual({ stopReason: "end_turn" });

      const updates = client.received
        .filter((m) => m.method === "session/update" && m.params.sessionId === sessionId)
        .map((m) => m.params.update);
      const text = updates
        .filter((u) => u.sessionUpdate === "agent_message_chunk")
        .map((u) => u.content.text)
        .join("");
      expect(text).toBe("I will write the notes.The notes are written.");
      const call = updates.find((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "w");
      expect(call).toBeDefined();
      const diff = [...updates, ...permissions.map((p) => p.toolCall)]
        .filter((u) => u.toolCallId === "w")
        .flatMap((u) => u.content ?? [])
        .find((c: Message) => c.type === "diff");
      expect(diff).toMatchObject({ type: "diff", path: file, oldText: null, newText: "# Notes\n" });
      expect(permissions).toHaveLength(1);
      expect(permissions[0]?.toolCall).toMatchObject({ toolCallId: "w", kind: "edit" });
      const last = updates.filter((u) => u.toolCallId === "w").at(-1);
      expect(last).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
      expect(readFileSync(file, "utf8")).toBe("# Notes\n");
      // stdout carried nothing but the protocol.
      expect(client.garbage).toEqual([]);
    });
  },
);
