/**
 * `npm run bench` (or, built, `node dist-bench/bench/startup/run.js [--quick]`): how
 * long the real `mitsu` command takes to start, measured in one run beside a bare `node -e 0` (the floor on this
 * machine) and beside Claude Code doing the same things, run for run in turn, so both see the same machine.
 *
 * - `--version`, `--help`: spawn to exit.
 * - `-p` first request: spawn to the moment a loopback stand-in for the API receives the first model request.
 * - interactive prompt visible: spawn, in a pseudo-terminal, to the first screen that shows the input prompt.
 *
 * Both start in the same work folder: a small git repository with a change, as a project is. Each figure is the
 * median of N runs (N=15, 5 with --quick). Claude Code is found through `CLAUDE_BIN` or in node_modules after
 * `npm install --no-save @anthropic-ai/claude-code@2.1.328`; without it its column shows "—".
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLAUDE_CODE_INSTALL, claudeCodeEnv, findClaudeCode, prepareClaudeHome } from "./claude-code.js";
import { startFirstRequestServer } from "./first-request.js";
import { promptVisibleMs } from "./prompt-visible.js";

const runs = process.argv.includes("--quick") ? 5 : 15;
const repoRoot = join(import.meta.dirname, "..", "..", "..");
/** The command to measure: this checkout's build, or another (`MITSU_BIN=/path/to/dist/cli/bin.js`, to compare). */
const bin = process.env.MITSU_BIN ?? join(repoRoot, "dist", "cli", "bin.js");
const claude = findClaudeCode(repoRoot);
/**
 * The input prompt on screen. mitsu's: the readline `> ` at the start of a line, or the full-screen editor's
 * border (a rule of `─`), whichever interactive mode this build has (`MITSU_PROMPT_PATTERN` overrides it).
 * Claude Code's: its `❯`.
 */
const MITSU_PROMPT = new RegExp(process.env.MITSU_PROMPT_PATTERN ?? "(?:^|[\\r\\n])\\s*(?:> |❯)|─{20}", "u");
const CLAUDE_PROMPT = /❯/u;
const API_KEY = "sk-ant-bench-0123456789abcdefghij";

function median(values: number[]): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function timeToExit(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = spawn(command, args, { stdio: "ignore", env, cwd });
    child.on("error", () => resolve(Number.NaN));
    child.on("exit", () => resolve(performance.now() - start));
  });
}

/** A small project: a git repository with three commits and an uncommitted change. */
function workFolder(root: string): string {
  const cwd = join(root, "project");
  mkdirSync(join(cwd, "src"), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=b@example.com", "-c", "user.name=bench", ...args], {
      cwd,
      stdio: "ignore",
    });
  git("init", "-q", "-b", "main");
  for (const name of ["README.md", "src/index.js", "src/util.js"]) {
    writeFileSync(join(cwd, name), `// ${name}\n`);
    git("add", name);
    git("commit", "-q", "--no-gpg-sign", "-m", `add ${name}`);
  }
  writeFileSync(join(cwd, "src/util.js"), "// changed\n");
  return cwd;
}

interface Row {
  label: string;
  target: string;
  mitsu: () => Promise<number>;
  claude?: () => Promise<number>;
}

const root = mkdtempSync(join(tmpdir(), "mitsu-startup-"));
const server = await startFirstRequestServer();
try {
  const cwd = workFolder(root);
  const mitsuHome = join(root, "mitsu-home");
  const claudeHome = join(root, "claude-home");
  mkdirSync(mitsuHome);
  mkdirSync(claudeHome);
  prepareClaudeHome(claudeHome, cwd, API_KEY);
  const mitsuEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: mitsuHome,
    TERM: "xterm-256color",
    ANTHROPIC_API_KEY: API_KEY,
    ANTHROPIC_BASE_URL: server.url,
  };
  const claudeEnv = claudeCodeEnv(claudeHome, server.url, API_KEY);
  const node = process.execPath;
  const rows: Row[] = [
    {
      label: "--version",
      target: "≤ 60",
      mitsu: () => timeToExit(node, [bin, "--version"], mitsuEnv, cwd),
      ...(claude ? { claude: () => timeToExit(claude, ["--version"], claudeEnv, cwd) } : {}),
    },
    {
      label: "--help",
      target: "≤ 60",
      mitsu: () => timeToExit(node, [bin, "--help"], mitsuEnv, cwd),
      ...(claude ? { claude: () => timeToExit(claude, ["--help"], claudeEnv, cwd) } : {}),
    },
    {
      label: "-p: first request after spawn",
      target: "≤ 150",
      mitsu: () => server.time(node, [bin, "-p", "hi", "--no-session-log"], { cwd, env: mitsuEnv }),
      ...(claude ? { claude: () => server.time(claude, ["-p", "hi"], { cwd, env: claudeEnv }) } : {}),
    },
    {
      label: "interactive: prompt visible",
      target: "≤ 250",
      mitsu: () => promptVisibleMs(node, [bin], { cwd, env: mitsuEnv, prompt: MITSU_PROMPT }),
      ...(claude
        ? { claude: () => promptVisibleMs(claude, [], { cwd, env: claudeEnv, prompt: CLAUDE_PROMPT }) }
        : {}),
    },
  ];

  const floorRuns: number[] = [];
  // In the commands' own environment: what the environment makes node do at start (NODE_EXTRA_CA_CERTS loads a
  // certificate file, ~30 ms) is not mitsu's.
  for (let i = 0; i < runs; i++) floorRuns.push(await timeToExit(node, ["-e", "0"], mitsuEnv, cwd));
  const floor = median(floorRuns);
  const results: Array<{ row: Row; mitsu: number; claude: number | undefined }> = [];
  for (const row of rows) {
    const mitsu: number[] = [];
    const other: number[] = [];
    // In turn, run for run: a machine that slows down mid-way slows both columns alike.
    for (let i = 0; i < runs; i++) {
      mitsu.push(await row.mitsu());
      if (row.claude) other.push(await row.claude());
    }
    results.push({ row, mitsu: median(mitsu), claude: row.claude ? median(other) : undefined });
  }

  const ms = (v: number | undefined) => (v === undefined ? "—" : Number.isNaN(v) ? "n/a" : v.toFixed(0));
  process.stdout.write(
    `\nStart-up (median of ${runs} runs, in a git repository, each command with only PATH, HOME, TERM and the API's ` +
      `variables set; node -e 0 takes ${floor.toFixed(0)} ms so)\n\n`,
  );
  process.stdout.write(
    "| | mitsu (ms) | above node -e 0 | target (ms) | Claude Code (ms) |\n|---|---:|---:|---:|---:|\n",
  );
  for (const { row, mitsu, claude: other } of results) {
    process.stdout.write(
      `| ${row.label} | ${ms(mitsu)} | ${ms(mitsu - floor)} | ${row.target} | ${ms(other)} |\n`,
    );
  }
  if (!claude) {
    process.stdout.write(
      `\nClaude Code was not found: \`${CLAUDE_CODE_INSTALL}\` (or CLAUDE_BIN=/path/to/claude) adds its column.\n`,
    );
  }
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
