import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");

/** The SDK-written edge server (test/mcp/edge-server.mjs). */
export const EDGE_SERVER = join(here, "edge-server.mjs");
/** The form server (test/mcp/form-server.mjs): its `ask` tool elicits a form and logs each answer to `FORM_LOG`. */
export const FORM_SERVER = join(here, "form-server.mjs");

/** `@modelcontextprotocol/server-everything`'s entry: `node <it> stdio|sse|streamableHttp`. */
export const EVERYTHING_SERVER = join(
  root,
  "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
);
/** `@modelcontextprotocol/server-filesystem`'s entry: `node <it> <allowed folder>…`. */
export const FILESYSTEM_SERVER = join(
  root,
  "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

/** A stdio server entry that runs a node script with this node. */
export function nodeServer(script: string, ...args: string[]) {
  return { command: process.execPath, args: [script, ...args] };
}

export function tempDir(prefix = "mitsu-mcp-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  ms = 5000,
  what = "the condition",
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** True while a process with this pid exists and is not a zombie. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return true;
  }
}
