import { lstat } from "node:fs/promises";
import { basename, join } from "node:path";
import { isInside } from "../fs/real-path.js";
import { protectedPathReason } from "./protected-path.js";
import { commandName } from "./unwrap-command.js";

/** The names whose presence in a folder makes writing a whole tree into it a protected write. */
const PROTECTED_ENTRIES = [".git", ".mitsu", ".claude", ".mcp.json"];

/**
 * The folders a command writes a whole tree of files into, whose names the line does not show: an archive
 * extracted (`tar -x`, `unzip`, `7z x`, `cpio -i`), a folder's contents copied (`cp -a src/. .`, `cp -rT`,
 * `rsync -a src/ dst`). Such a tree may hold `.git/hooks/…` or `.mitsu/settings.local.json`, written unseen by
 * the checks of the names a line shows. `"."` stands for the folder the line runs in. Empty for other commands.
 */
export function treeDestinations(words: readonly string[]): string[] {
  const [program = "", ...args] = words;
  const name = commandName(program);
  if (name === "tar" || name === "bsdtar" || name === "gtar") return tarDestinations(args);
  // `unzip -:` keeps `../` in member names: they may land anywhere.
  if (name === "unzip")
    return args.includes("-:") ? ["/"] : (optionValues(args, /^-d$/, /^-d(.+)$/) ?? ["."]);
  if ((name === "7z" || name === "7za" || name === "7zr") && (args[0] === "x" || args[0] === "e"))
    return optionValues(args, undefined, /^-o(.+)$/) ?? ["."];
  // cpio keeps absolute member names unless told not to: they may land anywhere.
  if (name === "cpio" && args.some((a) => /^(-[a-zA-Z]*i|--extract$)/.test(a))) {
    if (!args.includes("--no-absolute-filenames")) return ["/"];
    return optionValues(args, /^-D$|^--directory$/, /^--directory=(.+)$/) ?? ["."];
  }
  // `patch` writes the files its input names (GNU patch refuses only absolute names and `..`).
  if (name === "patch") return optionValues(args, /^(-d|--directory)$/, /^(?:--directory=|-d)(.+)$/) ?? ["."];
  if (name === "cp") return copyDestinations(args);
  if (name === "rsync") {
    const paths = positional(args);
    return paths.length >= 2 ? [paths[paths.length - 1]!] : [];
  }
  return [];
}

/** Commands that copy or move files into a folder under their own names (`cp .bashrc ~`). */
const COPIERS = new Set(["cp", "mv", "install", "rsync", "ln", "link", "scp"]);

/**
 * Where a copy lands when its destination is a folder: `DEST/NAME` for each source (`cp .bashrc ~` writes
 * `~/.bashrc`, a name the destination does not show). As written, relative to the folder the line runs in.
 */
export function copiedInto(words: readonly string[]): string[] {
  const [program = "", ...args] = words;
  const name = commandName(program);
  if (!COPIERS.has(name)) return [];
  const paths = positional(args);
  const target = optionValues(args, /^(-t|--target-directory)$/, /^--target-directory=(.+)$/);
  const destination = target?.[0] ?? paths.at(-1);
  const sources = target ? paths : paths.slice(0, -1);
  if (destination === undefined) return [];
  return sources.map((source) => `${destination.replace(/\/+$/, "")}/${basename(source)}`);
}

/**
 * What a link made by the line points at (`ln -s ~ h`, `cp -s`, `link`): a later write through the link lands
 * there, under a name that does not show where.
 */
export function linkedTo(words: readonly string[]): string[] {
  const [program = "", ...args] = words;
  const name = commandName(program);
  const links =
    name === "ln" ||
    name === "link" ||
    (name === "cp" &&
      args.some((a) => /^-[a-zA-Z]*[sl]/.test(a) || a === "--symbolic-link" || a === "--link"));
  return links ? positional(args) : [];
}

function tarDestinations(args: readonly string[]): string[] {
  const first = args[0] ?? "";
  const extracts =
    (!first.startsWith("-") && first.includes("x")) ||
    args.some((a) => /^-[a-zA-Z]*x/.test(a) || a === "--extract" || a === "--get");
  if (!extracts) return [];
  // `-P` keeps absolute names and `..` in them: members may land anywhere.
  const absolute =
    args.includes("--absolute-names") ||
    args.some((a) => /^-[a-zA-Z]*P/.test(a)) ||
    (!first.startsWith("-") && first.includes("P"));
  if (absolute) return ["/"];
  return optionValues(args, /^(-C|--directory)$/, /^(?:--directory=|-C)(.+)$/) ?? ["."];
}

/** `cp -r`: where a folder's contents (`src/.`, or any source with `-T`) land. */
function copyDestinations(args: readonly string[]): string[] {
  const recursive = args.some((a) => /^-[a-zA-Z]*[rRa]/.test(a) || a === "--recursive" || a === "--archive");
  if (!recursive) return [];
  const paths = positional(args);
  const target = optionValues(args, /^(-t|--target-directory)$/, /^--target-directory=(.+)$/);
  const sources = target ? paths : paths.slice(0, -1);
  const contents =
    args.some((a) => /^-[a-zA-Z]*T/.test(a) || a === "--no-target-directory") ||
    sources.some((s) => s === "." || s.endsWith("/.") || s.endsWith("/./"));
  if (!contents) return [];
  return target ?? (paths.length >= 2 ? [paths[paths.length - 1]!] : []);
}

/** The values of an option: `-C dir` (`separate`) or `-Cdir` / `--directory=dir` (`glued`); undefined if none. */
function optionValues(
  args: readonly string[],
  separate: RegExp | undefined,
  glued: RegExp,
): string[] | undefined {
  const values: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (separate?.test(arg) && i + 1 < args.length) values.push(args[++i]!);
    else {
      const match = glued.exec(arg);
      if (match?.[1]) values.push(match[1]);
    }
  }
  return values.length > 0 ? values : undefined;
}

function positional(args: readonly string[]): string[] {
  const end = args.indexOf("--");
  const before = end === -1 ? args : args.slice(0, end);
  const after = end === -1 ? [] : args.slice(end + 1);
  return [...before.filter((a) => !a.startsWith("-")), ...after];
}

/**
 * Whether a tree written into `folder` (absolute) may land on a protected file: it is the working folder or the
 * home folder or holds one of them, or it already holds `.git`, `.mitsu`, `.claude` or `.mcp.json`.
 */
export async function holdsProtected(folder: string, cwd: string, home: string): Promise<boolean> {
  if (isInside(folder, cwd) || isInside(folder, home)) return true;
  // ~/.ssh, ~/.config/git, …: a file in it is protected.
  if (protectedPathReason(join(folder, "x"), home) !== undefined) return true;
  for (const entry of PROTECTED_ENTRIES) {
    if (
      await lstat(join(folder, entry)).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}
