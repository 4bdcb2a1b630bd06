import { existsSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MITSU_BIN } from "../security/run-bin.js";
import { sessionLogs } from "./acp-harness.js";
import { type RawClient, startRawClient } from "./raw-client.js";

const INIT = { protocolVersion: 1, clientCapabilities: {} };

/** A prompt still runs to its end on this connection: nothing before it broke the agent. */
async function stillWorks(client: RawClient, text: string): Promise<string> {
  client.sim.enqueue({ content: [{ type: "text", text }] });
  const created = await client.request("session/new", { cwd: client.cwd, mcpServers: [] });
  const sessionId = created.result.sessionId as string;
  const done = await client.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "ping" }],
  });
  expect(done.result).toEqual({ stopReason: "end_turn" });
  return sessionId;
}

describe.skipIf(!existsSync(MITSU_BIN))(
  "mitsu acp: bad input gets the JSON-RPC error the protocol names",
  () => {
    it("malformed JSON, a batch, an unknown method, wrong params, requests before initialize, an unknown session", async () => {
      const client = await startRawClient([]);
      // Before initialize: refused as an invalid request.
      const early = await client.request("session/new", { cwd: client.cwd, mcpServers: [] });
      expect(early.error.code).toBe(-32600);
      // The client asks for a version this agent does not speak: it answers with its own.
      const init = await client.request("initialize", { protocolVersion: 7, clientCapabilities: {} });
      expect(init.result.protocolVersion).toBe(1);

      client.send("{ this is not json");
      expect((await client.next((m) => m.error?.code === -32700)).id).toBeNull();
      client.send(JSON.stringify([{ jsonrpc: "2.0", id: 99, method: "initialize", params: INIT }]));
      expect((await client.next((m) => m.id === null && m.error?.code === -32600)).error.code).toBe(-32600);

      expect((await client.request("session/frobnicate", {})).error.code).toBe(-32601);
      expect((await client.request("session/new", { mcpServers: [] })).error.code).toBe(-32602);
      expect((await client.request("session/prompt", { sessionId: "nope", prompt: "text" })).error.code).toBe(
        -32602,
      );
      const unknown = await client.request("session/prompt", {
        sessionId: "00000000-0000-4000-8000-000000000000",
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(unknown.error).toMatchObject({
        code: -32002,
        data: { sessionId: "00000000-0000-4000-8000-000000000000" },
      });
      expect((await client.request("session/set_mode", { sessionId: "x", modeId: "plan" })).error.code).toBe(
        -32002,
      );
      // A cancel for no session is a notification: no answer, no harm.
      client.notify("session/cancel", { sessionId: "nobody" });
      await stillWorks(client, "still here");
      expect(client.garbage).toEqual([]);
    });

    it("without a key, authentication is offered and a session is refused (-32000); session/close ends one", async () => {
      const keyless = await startRawClient([], undefined, {
        env: { PATH: process.env.PATH, HOME: "/nonexistent" },
      });
      const init = await keyless.request("initialize", INIT);
      expect(init.result.authMethods).toHaveLength(1);
      expect((await keyless.request("session/new", { cwd: keyless.cwd, mcpServers: [] })).error.code).toBe(
        -32000,
      );

      const client = await startRawClient([]);
      await client.request("initialize", INIT);
      const sessionId = await stillWorks(client, "before close");
      expect((await client.request("session/close", { sessionId })).result).toEqual({});
      const after = await client.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(after.error.code).toBe(-32002);
    });

    it("a hostile editor: a cwd that is not an absolute folder, links and images it must not follow", async () => {
      const client = await startRawClient([]);
      await client.request("initialize", INIT);
      for (const cwd of ["ws", "../..", "/nonexistent/folder", join(client.cwd, "README.md")]) {
        expect((await client.request("session/new", { cwd, mcpServers: [] })).error.code, cwd).toBe(-32602);
      }
      const created = await client.request("session/new", { cwd: client.cwd, mcpServers: [] });
      const sessionId = created.result.sessionId as string;
      // A resource link outside the workspace is named, never read; an image the model cannot take is refused.
      client.sim.enqueue({ content: [{ type: "text", text: "seen" }] });
      const linked = await client.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "look" },
          { type: "resource_link", name: "passwd", uri: "file:///etc/passwd" },
          { type: "resource_link", name: "readme", uri: `file://${join(client.cwd, "README.md")}` },
          { type: "resource", resource: { uri: "file:///x/y.ts", text: "embedded text" } },
        ],
      });
      expect(linked.result.stopReason).toBe("end_turn");
      const sent = JSON.stringify(client.sim.requests.at(-1)?.body);
      expect(sent).toContain("outside the workspace: not read");
      expect(sent).not.toContain("root:x:0:0");
      expect(sent).toContain("temperature-conversion");
      expect(sent).toContain("embedded text");
      // An image is sent to the model as an image block.
      client.sim.enqueue({ content: [{ type: "text", text: "a pixel" }] });
      const png =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
      const pictured = await client.request("session/prompt", {
        sessionId,
        prompt: [
          { type: "text", text: "what is this?" },
          { type: "image", mimeType: "image/png", data: png },
        ],
      });
      expect(pictured.result.stopReason).toBe("end_turn");
      const last = client.sim.requests.at(-1)?.body.messages.at(-1);
      expect(last.content).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            type: "image",
            source: { type: "base64", media_type: "image/png", data: png },
          }),
        ]),
      );
      const badImage = await client.request("session/prompt", {
        sessionId,
        prompt: [{ type: "image", mimeType: "image/svg+xml", data: "PHN2Zz4=" }],
      });
      expect(badImage.error.code).toBe(-32602);
      // An MCP server whose configuration would read mitsu's environment (its keys) is refused.
      const leaky = await client.request("session/new", {
        cwd: client.cwd,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${…}, as a client would send it.
        mcpServers: [{ name: "x", command: "/bin/echo", args: ["${ANTHROPIC_API_KEY}"], env: [] }],
      });
      expect(leaky.error.code).toBe(-32602);
      // A large message (400 KiB of text, about 100k tokens) is taken whole.
      client.sim.enqueue({ content: [{ type: "text", text: "big one read" }] });
      const big = await client.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "x ".repeat(200 * 1024) }],
      });
      expect(big.error, JSON.stringify(big.error)).toBeUndefined();
      expect(big.result.stopReason).toBe("end_turn");
      // A message past the limit (16 MiB) is answered with an error for its id, and the connection goes on.
      client.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 4242,
          method: "session/prompt",
          params: { sessionId, prompt: [{ type: "text", text: "y".repeat(17 * 1024 * 1024) }] },
        }),
      );
      expect((await client.next((m) => m.id === 4242)).error.code).toBe(-32600);
      await stillWorks(client, "still here");
    });

    it("property: random, truncated and out-of-order JSON-RPC never crashes the agent nor loses a session log", async () => {
      const client = await startRawClient([]);
      await client.request("initialize", INIT);
      const logged: string[] = [];
      const methods = [
        "initialize",
        "session/new",
        "session/load",
        "session/prompt",
        "session/cancel",
        "session/set_mode",
        "session/set_config_option",
        "session/close",
        "authenticate",
        "fs/read_text_file",
        "$/cancel_request",
        "whatever",
      ];
      const params = fc.oneof(
        fc.constant(undefined),
        fc.jsonValue(),
        fc.record({
          sessionId: fc.oneof(fc.uuid(), fc.string(), fc.constant("../../etc/passwd")),
          cwd: fc.oneof(fc.constant(client.cwd), fc.string(), fc.constant("/")),
          prompt: fc.oneof(fc.jsonValue(), fc.constant([{ type: "text", text: "hi" }])),
          modeId: fc.string(),
          mcpServers: fc.oneof(fc.constant([]), fc.jsonValue()),
        }),
      );
      const message = fc.oneof(
        fc
          .record({
            id: fc.oneof(fc.integer({ min: 10_000 }), fc.string(), fc.constant(null)),
            method: fc.constantFrom(...methods),
            params,
          })
          .map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })),
        fc
          .record({ method: fc.constantFrom(...methods), params })
          .map((m) => JSON.stringify({ jsonrpc: "2.0", ...m })),
        fc.jsonValue().map((v) => JSON.stringify(v)),
        fc.string(),
      );
      // A line cut anywhere (a truncated message), never with a newline inside.
      const cutLine = fc
        .tuple(message, fc.nat(), fc.boolean())
        .map(([text, at, cut]) =>
          (cut ? text.slice(0, at % (text.length + 1)) : text).replace(/[\r\n\u2028\u2029]/g, " "),
        );
      // Well-formed requests at a session of an earlier round, out of order: cancel, close, load it again, modes.
      const targeted = fc
        .record({
          method: fc.constantFrom(
            "session/cancel",
            "session/close",
            "session/load",
            "session/set_mode",
            "session/set_config_option",
          ),
          pick: fc.nat(),
          id: fc.integer({ min: 10_000 }),
          modeId: fc.constantFrom("default", "plan", "acceptEdits", "bypassPermissions", "nope"),
        })
        .map(
          (m) => () =>
            JSON.stringify({
              jsonrpc: "2.0",
              ...(m.method === "session/cancel" ? {} : { id: m.id }),
              method: m.method,
              params: {
                sessionId: logged.length > 0 ? logged[m.pick % logged.length] : "none",
                cwd: client.cwd,
                mcpServers: [],
                modeId: m.modeId,
                configId: "model",
                value: m.modeId === "plan" ? "haiku" : "default",
              },
            }),
        );
      const line = fc.oneof(
        cutLine.map((text) => () => text),
        targeted,
      );
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(line, { maxLength: 12 }), async (lines) => {
          for (const text of lines) client.send(text());
          // Then a real session, which must work and keep its log.
          logged.push(await stillWorks(client, `round ${round++}`));
          expect(client.child.exitCode).toBeNull();
        }),
        { numRuns: Number(process.env.MITSU_FAULTS ?? 0) > 0 ? 300 : 25, seed: 20261201 },
      );
      expect(client.garbage).toEqual([]);
      // Every session that prompted has its log, whole (each line JSON).
      const logs = sessionLogs(client.home);
      for (const id of logged) {
        const log = logs.find((text) => text.includes(`"id":"${id}"`));
        expect(log, id).toBeDefined();
        for (const text of (log ?? "").trim().split("\n")) expect(() => JSON.parse(text)).not.toThrow();
      }
      client.child.stdin?.end();
      expect(await client.exited).toBe(0);
    }, 120_000);
  },
);
