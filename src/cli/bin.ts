#!/usr/bin/env node
import { homedir } from "node:os";
import { exitOnBrokenPipe } from "./broken-pipe.js";
import { packageVersion } from "./version.js";

exitOnBrokenPipe(process.stdout, (code) => process.exit(code));
exitOnBrokenPipe(process.stderr, (code) => process.exit(code));

const abort = new AbortController();
let interrupts = 0;
process.on("SIGINT", () => {
  // The first Ctrl-C stops the run cleanly (pending tool calls are answered, the log is kept); the second exits.
  if (++interrupts > 1) process.exit(130);
  abort.abort(new Error("interrupted"));
});
const args = process.argv.slice(2);
// `mitsu --version` answers before the argument parser is even loaded.
if (args.length === 1 && (args[0] === "--version" || args[0] === "-v")) {
  process.stdout.write(`${packageVersion()}\n`);
  process.exit(0);
}
const { main } = await import("./main.js");
process.exitCode = await main(args, {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  home: homedir(),
  signal: abort.signal,
});
