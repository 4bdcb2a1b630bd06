import { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { PrintIo } from "../cli-io.js";
import type { CliOptions } from "../cli-options.js";
import { stripControls } from "../render/terminal-text.js";
import { createAcpAgent } from "./acp-agent.js";
import { limitLines } from "./line-limit.js";

/** The longest message taken: a prompt of large images fits; the SDK's own limit (32 MiB) would close the connection. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * `mitsu acp`: an ACP agent on standard input and output (newline-delimited JSON-RPC), for an editor that starts
 * it (Zed, JetBrains IDEs, Neovim plugins). Standard output carries only the protocol; notices go to standard
 * error, which editors keep as the agent's log. Runs until the client closes the connection (or Ctrl-C), then
 * ends every session: running prompts stop, shells and MCP servers stop, session logs are closed. Exit code 0.
 */
export async function acpCommand(options: CliOptions, io: PrintIo): Promise<number> {
  if (!io.stdin) {
    io.stderr.write("mitsu acp: standard input is the protocol's stream, and there is none\n");
    return 1;
  }
  const warn = (message: string) => io.stderr.write(`mitsu: ${stripControls(message)}\n`);
  // A line past the limit is answered with an error and dropped; the connection goes on.
  const input = limitLines(
    Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>,
    MAX_LINE_BYTES,
    (id) =>
      io.stdout.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message: `Invalid request: a message is larger than ${MAX_LINE_BYTES} bytes` } })}\n`,
      ),
  );
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        io.stdout.write(chunk, (error) => (error ? reject(error) : resolve()));
      }),
  });
  const { app, closeAll } = createAcpAgent({ options, cwd: io.cwd, home: io.home, env: io.env, warn });
  const connection = app.connect(ndJsonStream(output, input));
  const stop = () => connection.close();
  io.signal?.addEventListener("abort", stop, { once: true });
  try {
    await connection.closed.catch(() => undefined);
  } finally {
    io.signal?.removeEventListener("abort", stop);
    await closeAll();
  }
  return 0;
}
