/** What a command runs on its behalf. */
export type Unwrapped =
  /** Another command, with its words: `timeout 30 npm test` runs `npm test`. */
  | {
      kind: "command";
      words: string[];
      /**
       * The wrapper only changes how the command runs (time limit, priority, buffering), so an allow rule
       * for the inner command may allow the whole (`Bash(npm test:*)` allows `timeout 30 npm test`).
       */
      transparent: boolean;
    }
  /** A script given as text (`sh -c '…'`, `eval …`, `trap '…' EXIT`, `watch 'make'`). */
  | { kind: "script"; script: string };

/** Options that take a value, per wrapper (`-n 5`); `--opt=value` needs no entry. */
const VALUE_OPTIONS: Record<string, Set<string>> = {
  env: new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"]),
  nice: new Set(["-n", "--adjustment"]),
  timeout: new Set(["-s", "--signal", "-k", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e", "--input", "--output", "--error"]),
  ionice: new Set(["-c", "--class", "-n", "--classdata", "-p", "-P", "-u"]),
  exec: new Set(["-a"]),
  command: new Set(),
  builtin: new Set(),
  nohup: new Set(),
  setsid: new Set(),
  time: new Set(["-f", "--format", "-o", "--output"]),
  sudo: new Set([
    "-u",
    "--user",
    "-g",
    "--group",
    "-C",
    "-D",
    "--chdir",
    "-h",
    "--host",
    "-p",
    "--prompt",
    "-r",
    "-t",
    "-U",
    "-T",
  ]),
  doas: new Set(["-u", "-C"]),
  xargs: new Set([
    "-I",
    "-L",
    "-n",
    "-P",
    "-d",
    "-E",
    "-s",
    "-a",
    "--max-args",
    "--max-procs",
    "--delimiter",
    "--arg-file",
  ]),
  watch: new Set(["-n", "--interval", "-d", "--differences"]),
  flock: new Set(["-w", "--timeout", "-E", "--conflict-exit-code"]),
};

/** Wrappers that only change how the command runs: an allow rule for the inner command may allow the line. */
const TRANSPARENT = new Set(["nice", "timeout", "stdbuf", "nohup", "time", "command", "exec", "env"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox"]);

/** The last path segment: `/usr/bin/env` → `env`. */
export function commandName(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash === -1 ? word : word.slice(slash + 1);
}

/**
 * What `words` (a simple command without its assignments) runs on its behalf, as far as its words show:
 * the command behind `env`, `command`, `exec`, `nice`, `timeout`, `nohup`, `stdbuf`, `time`, `sudo`,
 * `xargs`, `find -exec`, `flock`, and the scripts of `sh -c`, `bash -c`, `eval`, `trap` and `watch`.
 * Best effort, for deny rules: an option this does not know may hide the inner command.
 */
export function unwrapCommand(words: readonly string[]): Unwrapped[] {
  const name = commandName(words[0] ?? "");
  if (name === "eval") return words.length > 1 ? [{ kind: "script", script: words.slice(1).join(" ") }] : [];
  if (name === "trap")
    return words[1] !== undefined && !words[1].startsWith("-") ? [{ kind: "script", script: words[1] }] : [];
  if (SHELLS.has(name)) return shellScript(words);
  // `alias x='rm -rf'` (with `shopt -s expand_aliases`): the next line's `x` runs the value.
  if (name === "alias") {
    return words
      .slice(1)
      .filter((word) => word.includes("="))
      .map((word) => ({ kind: "script", script: word.slice(word.indexOf("=") + 1) }));
  }
  if (name === "find") return findExec(words);
  const valueOptions = VALUE_OPTIONS[name];
  if (!valueOptions) return [];
  let i = 1;
  let plain = true;
  const assignments: string[] = [];
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") {
      i++;
      break;
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      assignments.push(word);
      continue;
    }
    if (!word.startsWith("-") || word === "-") {
      if (name === "env" && word === "-") {
        plain = false;
        continue;
      }
      break;
    }
    // `env -S 'rm -rf x'` splits its argument into a command line.
    if (
      name === "env" &&
      (word === "-S" || word === "--split-string" || word.startsWith("--split-string="))
    ) {
      const split = word.includes("=") ? word.slice(word.indexOf("=") + 1) : (words[i + 1] ?? "");
      const rest = words.slice(word.includes("=") ? i + 1 : i + 2);
      return [{ kind: "script", script: [split, ...rest].join(" ") }];
    }
    // `nice -5`, `xargs -0`, `-oL`: one word; `-n 5`: two.
    plain = plain && name !== "env" && name !== "exec" && name !== "command";
    if (valueOptions.has(word)) i++;
  }
  if (name === "env" && assignments.length > 0 && i >= words.length) return [];
  if (name === "timeout") i++; // the duration
  if (name === "flock") i++; // the lock file
  const inner = [...assignments, ...words.slice(i)];
  if (inner.length === assignments.length)
    return name === "xargs" ? [{ kind: "command", words: ["echo"], transparent: false }] : [];
  if (name === "watch") return [{ kind: "script", script: inner.join(" ") }];
  return [{ kind: "command", words: inner, transparent: plain && TRANSPARENT.has(name) }];
}

/**
 * A shell given neither `-c` nor a script file reads its script from standard input (`… | bash`,
 * `bash <<< '…'`): a script nobody can check before it runs.
 */
export function readsScriptFromStdin(words: readonly string[]): boolean {
  const name = commandName(words[0] ?? "");
  if (!SHELLS.has(name) || name === "busybox") return false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "-s") return true;
    if (word === "--") return i + 1 >= words.length;
    if (!word.startsWith("-") && !word.startsWith("+")) return false; // a script file
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word)) return false;
    if (word === "-o" || word === "+o" || word === "-O" || word === "+O") i++;
  }
  return true;
}

/** `bash -c 'script'` (options may come first, `-c` may be bundled: `-lc`, `-ec`). */
function shellScript(words: readonly string[]): Unwrapped[] {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith("-") && !word.startsWith("+")) return [];
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(word)) {
      const script = words.slice(i + 1).find((w) => !w.startsWith("-"));
      return script === undefined ? [] : [{ kind: "script", script }];
    }
    if (word === "-o" || word === "+o" || word === "-O" || word === "+O") i++;
  }
  return [];
}

/** `find … -exec cmd {} ;` (also `-execdir`, `-ok`, `-okdir`), each one. */
function findExec(words: readonly string[]): Unwrapped[] {
  const found: Unwrapped[] = [];
  for (let i = 1; i < words.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(words[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < words.length && words[end] !== ";" && words[end] !== "+") end++;
    if (end > start) found.push({ kind: "command", words: words.slice(start, end), transparent: false });
    i = end;
  }
  return found;
}
