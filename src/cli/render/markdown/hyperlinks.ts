/**
 * Whether the terminal described by `env` shows OSC 8 hyperlinks (and does not print their bytes). Only terminals
 * known to: others, and everything inside tmux/screen unless told, get the URL as dim text only.
 * `FORCE_HYPERLINK=1` / `0` decides outright.
 */
export function supportsHyperlinks(env: NodeJS.ProcessEnv): boolean {
  if (env.FORCE_HYPERLINK !== undefined) return env.FORCE_HYPERLINK !== "0" && env.FORCE_HYPERLINK !== "";
  if (env.TMUX || env.STY || env.TERM === "dumb" || env.CI) return false;
  if (env.KITTY_WINDOW_ID || env.WEZTERM_PANE || env.WT_SESSION || env.GHOSTTY_RESOURCES_DIR) return true;
  const program = env.TERM_PROGRAM;
  if (program === "iTerm.app" || program === "WezTerm" || program === "vscode" || program === "ghostty")
    return true;
  const vte = Number(env.VTE_VERSION);
  return Number.isFinite(vte) && vte >= 5000;
}

/** Schemes a link may have to become a hyperlink: nothing that runs or reads local things (`javascript:`, `file:`). */
const LINKABLE = /^(?:https?:\/\/|mailto:)[^\s]{1,2000}$/i;

/** `href` when it is safe to hand to the terminal as a hyperlink target, else undefined. */
export function linkTarget(href: string): string | undefined {
  return LINKABLE.test(href) ? href : undefined;
}

/** `text` as an OSC 8 hyperlink to `href` (already checked by `linkTarget`). */
export function hyperlink(text: string, href: string): string {
  return `\u001b]8;;${href}\u001b\\${text}\u001b]8;;\u001b\\`;
}
