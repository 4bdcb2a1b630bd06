#!/usr/bin/env node
import { homedir } from "node:os";
import { exitOnBrokenPipe } from "./broken-pipe.js";
import { main } from "./main.js";

exitOnBrokenPipe(process.stdout, (code) => process.exit(code));
exitOnBrokenPipe(process.stderr, (code) => process.exit(code));

const abort = new AbortController();
let interrupts = 0;
process.on("SIGINT", () => {
  // The first Ctrl-C stops the run cleanly (pending tool calls are answered, the log is kept); the second exits.
  if (++interrupts > 1) process.exit(130);
  abort.abort(new Error("interrupted"));
});
process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  home: homedir(),
  signal: abort.signal,
});
