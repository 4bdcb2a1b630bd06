import { commandName } from "./unwrap-command.js";

/** git's options before the subcommand that take the next word as their value. */
const GIT_VALUE_OPTIONS =
  /^(-C|-c|--git-dir|--work-tree|--namespace|--config-env|--exec-path|--super-prefix)$/;
/** `git config` options and subcommands that only read. */
const READS =
  /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|--list|-l|get|list)$/;
/** `git config` options that write whatever the count of names and values. */
const WRITES =
  /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|-e|--edit|set|unset|rename-section|remove-section|edit)$/;
/** `git config` options that take the next word as their value. */
const CONFIG_VALUE_OPTIONS = /^(-f|--file|--blob|--type|--default|--comment|--value)$/;

/**
 * Whether a command is `git config` setting something: it writes `.git/config` (or `~/.gitconfig`), where
 * `core.fsmonitor`, `core.hooksPath`, `core.pager` or an alias name programs that git runs later — mitsu's own
 * `git status` at the next start included. A read (`git config --get x`, `git config x`) is not. Also git
 * commands that write hooks or files outside the work tree: `init --template`, `apply --unsafe-paths`.
 */
export function setsGitConfig(words: readonly string[]): boolean {
  const [program = "", ...args] = words;
  if (commandName(program) !== "git") return false;
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += GIT_VALUE_OPTIONS.test(args[i]!) ? 2 : 1;
  // `git init --template=dir` (also run again in a repository) copies the template's hooks into .git/hooks.
  if (
    (args[i] === "init" || args[i] === "clone") &&
    args.some((a) => /^--template|init\.templatedir/i.test(a))
  )
    return true;
  // `git apply --unsafe-paths`: the patch's files may lie outside the work tree (`../../.bashrc`).
  if ((args[i] === "apply" || args[i] === "am") && args.includes("--unsafe-paths")) return true;
  if (args[i] !== "config") return false;
  const rest = args.slice(i + 1);
  if (rest.some((arg) => WRITES.test(arg))) return true;
  if (rest.some((arg) => READS.test(arg))) return false;
  let positional = 0;
  for (let j = 0; j < rest.length; j++) {
    if (CONFIG_VALUE_OPTIONS.test(rest[j]!)) j++;
    else if (!rest[j]!.startsWith("-")) positional++;
  }
  return positional >= 2;
}
