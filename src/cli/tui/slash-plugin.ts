import { runPluginWords } from "../conversation/plugin-command.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";

/**
 * `/plugin …` in a session: `mitsu plugin`'s words (`/plugin` alone lists the installed plugins), for this folder
 * and home. What is installed or enabled loads in the next session; an update whose hooks or MCP servers changed
 * is held back with a notice (approve it with `/plugin enable`).
 */
export async function slashPlugin(
  words: string[],
  where: { cwd: string; home: string },
  write: (text: string) => void,
  style: Style,
): Promise<void> {
  const failed = await runPluginWords(
    words,
    { cwd: where.cwd, home: where.home, say: (line) => write(`${stripControls(line)}\n`) },
    (text) => write(text),
  );
  if (failed !== undefined) write(style.red(`✖ ${stripControls(failed)}\n`));
  else if (words.length > 0 && !["list", "help"].includes(words[0]!) && words[1] !== "list") {
    write(style.dim("(plugins load when a session starts: start mitsu again to use the change)\n"));
  }
}
