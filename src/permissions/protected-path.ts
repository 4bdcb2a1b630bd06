import { basename, dirname, sep } from "node:path";

/** Folders whose files steer what later runs: git's config and hooks, mitsu's and Claude Code's settings. */
const PROTECTED_FOLDERS = new Set([".git", ".mitsu", ".claude"]);
/** Files that steer what later runs wherever they are. */
const PROTECTED_FILES = new Set([".mcp.json"]);
/** Shell start-up files in the home folder: a line added there runs in every later shell. */
export const SHELL_STARTUP: ReadonlySet<string> = new Set([
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  // Sourced by the default ~/.bashrc of Debian and Ubuntu.
  ".bash_aliases",
  ".profile",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".kshrc",
  ".cshrc",
  ".tcshrc",
  ".login",
]);

/**
 * Other files in the home folder that run code later: git's config (a `core.fsmonitor`, an alias), the login
 * session's environment and the X start-up files.
 */
export const HOME_STARTUP_FILES: readonly string[] = [
  ".gitconfig",
  ".pam_environment",
  ".xprofile",
  ".xsession",
  ".xsessionrc",
  ".xinitrc",
];

/**
 * Folders in the home folder whose files run code later: ssh's config (a `ProxyCommand`) and keys, git's and
 * fish's config, systemd user units, desktop autostart entries, the session's environment, and `~/.local/bin`
 * (before `/usr/bin` on the PATH of Debian's and Ubuntu's login shells).
 */
export const HOME_STARTUP_FOLDERS: readonly string[] = [
  ".ssh",
  ".config/git",
  ".config/fish",
  ".config/systemd",
  ".config/autostart",
  ".config/environment.d",
  ".local/bin",
];

/**
 * Why a write to `path` (absolute) must always be asked, or undefined. A model that may edit without asking
 * (acceptEdits, an allow rule) could otherwise raise its own permissions: a `core.fsmonitor` command in
 * `.git/config` runs at the next `git status`, `.git/hooks/*` at the next commit, `.mitsu/settings.local.json`
 * switches the next run to bypass mode, a line in `~/.bashrc` runs in every shell.
 */
export function protectedPathReason(path: string, home: string): string | undefined {
  // macOS's and Windows' file systems ignore case (`.GIT/hooks` is `.git/hooks`), and HFS+ also ignores the
  // invisible joiners git itself refuses in `.git` (`.g\u200cit`): names are compared folded.
  path = foldName(path);
  home = foldName(home);
  const segments = path.split(sep);
  const folder = segments.slice(0, -1).find((segment) => PROTECTED_FOLDERS.has(segment));
  if (folder !== undefined) return `files in ${folder}/ can change what runs later`;
  const name = basename(path);
  if (PROTECTED_FOLDERS.has(name)) return `${name} can change what runs later`;
  if (PROTECTED_FILES.has(name)) return `${name} can change what runs later`;
  if (SHELL_STARTUP.has(name) && dirname(path) === home) return `${name} runs in every new shell`;
  if (path === `${home}${sep}.config${sep}fish${sep}config.fish`)
    return "config.fish runs in every new shell";
  if (dirname(path) === home && HOME_STARTUP_FILES.includes(name))
    return `~/${name} can change what runs later`;
  const homeFolder = HOME_STARTUP_FOLDERS.find((f) =>
    path.startsWith(`${home}${sep}${f.split("/").join(sep)}${sep}`),
  );
  if (homeFolder !== undefined) return `files in ~/${homeFolder}/ can change what runs later`;
  return undefined;
}

/** A path as a case-insensitive file system compares it: lower case, without the code points HFS+ ignores. */
function foldName(path: string): string {
  return path.toLowerCase().replace(/[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u206a-\u206f\ufeff]/g, "");
}
