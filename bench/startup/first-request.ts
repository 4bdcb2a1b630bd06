import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback stand-in for the model API: it notes when the first request arrives and answers every one 400. */
export interface FirstRequestServer {
  url: string;
  /** Spawns the command and resolves to the milliseconds from spawn to the first request (NaN: none came). */
  time(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<number>;
  close(): Promise<void>;
}

export async function startFirstRequestServer(timeoutMs = 10_000): Promise<FirstRequestServer> {
  let onRequest: (() => void) | undefined;
  const server = createServer((req, res) => {
    onRequest?.();
    req.resume();
    res.writeHead(400, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "bench" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    time(command, args, { cwd, env }) {
      return new Promise((resolve) => {
        let arrived = Number.NaN;
        const start = performance.now();
        const child = spawn(command, args, { cwd, env, stdio: "ignore" });
        // The first request is the measure; what the command does after it (its error, a retry) is not.
        onRequest = () => {
          if (Number.isNaN(arrived)) arrived = performance.now() - start;
          onRequest = undefined;
          child.kill("SIGKILL");
        };
        const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
        child.on("error", () => resolve(Number.NaN));
        child.on("exit", () => {
          clearTimeout(timer);
          onRequest = undefined;
          resolve(arrived);
        });
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
