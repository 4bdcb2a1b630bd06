import { join } from "node:path";
import type { SlashCommand } from "@mariozechner/pi-tui";
import { projectDir } from "../../context/project-dir.js";
import type { CliOptions } from "../cli-options.js";
import { colorEnabled, createStyle } from "../render/style.js";
import type { InteractiveIo } from "./interactive-io.js";
import { openPromptHistory } from "./prompt-history.js";
import { createScreen } from "./screen.js";

export type { InteractiveIo } from "./interactive-io.js";

/**
 * `mitsu` at a terminal: the screen (pi-tui: the conversation, a working indicator, the prompt editor, a status
 * line), each prompt one run through the loop with the transcript so far, permission questions answered with
 * one key in a dialog that takes the editor's place. Esc or Ctrl-C stop the run at hand (the loop answers its
 * pending tool calls, so the transcript stays valid); prompts typed during a run are queued, shown, and sent
 * when it ends (Esc takes them back to edit). Ctrl-D at an empty prompt, `/exit` or Ctrl-C twice at an empty
 * prompt leave. `options.prompt` is sent first. Resolves to the exit code: 0, or 130 when `io.signal` (a signal
 * to the process) or Ctrl-D during a run ended it (the run was interrupted).
 *
 * The editor is on screen before the agent's code is loaded (the harness is most of the start-up time), so the
 * user can type at once; what they send waits until the agent is open.
 */
export async function interactiveMode(options: CliOptions, io: InteractiveIo): Promise<number> {
  const style = createStyle(colorEnabled(io.stdout as NodeJS.WriteStream));
  let commands: () => SlashCommand[] = () => [];
  const screen = createScreen({
    stdin: io.stdin,
    stdout: io.stdout,
    style,
    cwd: io.cwd,
    history: openPromptHistory(join(projectDir({ cwd: io.cwd, home: io.home }), "history.jsonl")),
    commands: () => commands(),
  });
  // Until the agent is open (settings, skills, MCP servers): the user can already type.
  screen.setFooter("starting…");
  try {
    const { interactiveSession } = await import("./interactive-session.js");
    return await interactiveSession(options, io, screen, style, (next) => {
      commands = next;
    });
  } finally {
    screen.stop();
  }
}
