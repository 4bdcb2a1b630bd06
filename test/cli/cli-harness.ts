import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { onTestFinished } from "vitest";
import { main } from "../../src/cli/main.js";
import { type SimulatorOptions, startSimulator } from "../../src/simulator/index.js";

export const DEMO_WORKSPACE = join(import.meta.dirname, "..", "..", "examples", "demo-workspace");

class Capture extends Writable {
  text = "";
  isTTY = false;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString("utf8");
    done();
  }
}

/** A temp workspace (a copy of the demo workspace unless `empty`) and a temp home, removed when the test ends. */
export function tempWorkspace(options: { empty?: boolean } = {}): {
  root: string;
  cwd: string;
  home: string;
} {
  const root = mkdtempSync(join(tmpdir(), "mitsu-cli-test-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const cwd = join(root, "ws");
  if (options.empty) cpSync(DEMO_WORKSPACE, cwd, { recursive: true, filter: () => false });
  else cpSync(DEMO_WORKSPACE, cwd, { recursive: true });
  return { root, cwd, home: join(root, "home") };
}

/** Runs `mitsu <args>` in-process with captured output (and `stdin` to read, when given). */
export async function runMitsu(
  args: string[],
  options: {
    cwd: string;
    home: string;
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    stdin?: NodeJS.ReadableStream;
  },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(args, {
    stdout,
    stderr,
    ...(options.stdin ? { stdin: options.stdin } : {}),
    cwd: options.cwd,
    home: options.home,
    env: { PATH: process.env.PATH, ...options.env },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** A simulator plus the environment that points mitsu's Anthropic provider at it. */
export async function simulatorEnv(options: SimulatorOptions = {}) {
  const sim = await startSimulator(options);
  return { sim, env: { ANTHROPIC_API_KEY: "sim-key", ANTHROPIC_BASE_URL: sim.url } };
}
