import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDurableAgent, serveWorker } from "../../src/durable/index.js";
import { freePort } from "../mcp/mcp-fixtures.js";
import { startWorkerProcess, until, type WorkerProcess } from "./durable-harness.js";

// A worker runs Bash and Edit for whoever invokes it: listening beyond this machine without the Restate
// server's identity key, it says so; on loopback (the default) or with a key it does not.
const dirs: string[] = [];
let worker: WorkerProcess | undefined;
afterEach(async () => {
  await worker?.kill();
  worker = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[]) {
  const root = mkdtempSync(join(tmpdir(), "mitsu-worker-exposure-"));
  dirs.push(root);
  mkdirSync(join(root, "home"));
  worker = await startWorkerProcess({
    port: await freePort(),
    workspaces: root,
    home: join(root, "home"),
    env: { ANTHROPIC_API_KEY: "k" },
    args,
  });
  return worker;
}

describe("mitsu worker's exposure", () => {
  it("warns when it listens beyond loopback without --identity-key", async () => {
    const w = await start(["--host", "0.0.0.0"]);
    // stderr and stdout are separate pipes: the warning may arrive after the "serving" line.
    await until(() => w.output().includes("without --identity-key"), 5_000, "the warning");
    expect(w.output()).toContain("listening on 0.0.0.0 without --identity-key: anyone who can reach port");
    // Once, in mitsu's words: the Restate SDK's own warning (printed twice before) is left out; it goes to the
    // same stderr before mitsu's, so it would be there by now.
    expect(w.output().split("without --identity-key").length - 1).toBe(1);
    expect(w.output()).not.toContain("without validating request signatures");
  });

  it("listens on loopback without a warning", async () => {
    const w = await start([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.output()).toContain("at http://127.0.0.1:");
    expect(w.output()).not.toContain("without --identity-key");
  });
});

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("the library's serveWorker", () => {
  it.each(["http1", "http2"] as const)(
    "says once (%s) that it accepts unsigned requests without identity keys, and not with them",
    async (protocol) => {
      const agent = createDurableAgent({ setup: async () => ({}) as never });
      const lines: string[] = [];
      const endpoint = await serveWorker({
        services: [agent],
        port: 0,
        protocol,
        log: (line) => lines.push(line),
      });
      await endpoint.close();
      expect(lines.filter((line) => line.includes("without validating request signatures"))).toHaveLength(1);
      lines.length = 0;
      const key = "publickeyv1_ChjENKeMvCtRnqG2mrBK1HmPKufgFUc98K8B3ononQvp";
      const signed = await serveWorker({
        services: [agent],
        port: 0,
        protocol,
        identityKeys: [key],
        log: (line) => lines.push(line),
      });
      await signed.close();
      expect(lines.join("\n")).not.toContain("without validating");
    },
  );

  // Issue 21 (smaller): it listened on 0.0.0.0 unless told otherwise, while `mitsu worker` binds 127.0.0.1.
  it("listens on loopback by default: another interface of this machine is refused", async () => {
    const agent = createDurableAgent({ setup: async () => ({}) as never });
    const endpoint = await serveWorker({ services: [agent], port: 0, logLevel: "silent" });
    try {
      expect(endpoint.url).toBe(`http://127.0.0.1:${endpoint.port}`);
      expect(await accepts("127.0.0.1", endpoint.port)).toBe(true);
      const outside = Object.values(networkInterfaces())
        .flat()
        .find((a) => a?.family === "IPv4" && !a.internal)?.address;
      if (outside) expect(await accepts(outside, endpoint.port)).toBe(false);
    } finally {
      await endpoint.close();
    }
  });
});
