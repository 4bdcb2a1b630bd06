import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { isOwnSessionFile } from "../../harness/own-session-file.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";
import type { LineInput } from "./line-input.js";

/**
 * At the terminal, before `-r <file>` resumes a session file that is not one of mitsu's own (`docs/session.jsonl`
 * in a clone): says where it came from and asks. True: resume it (in a copy; its checkpoints are not used);
 * false: start a new session instead. A session id, or a file under `~/.mitsu`, is not asked about.
 */
export async function confirmForeignSession(
  resume: string,
  io: { cwd: string; home: string; input: LineInput; write: (text: string) => void; style: Style },
): Promise<boolean> {
  const path = resolve(io.cwd, resume);
  const named = resume.endsWith(".jsonl") || resume.includes("/") || resume.includes("\\");
  if (!named && !existsSync(path)) return true; // an id: found among mitsu's own sessions
  if (isOwnSessionFile(path, io.home, [join(io.home, ".mitsu")])) return true;
  io.write(
    io.style.yellow(
      `${stripControls(path)} is not one of mitsu's own session files (not under ~/.mitsu): it may come from a repository. Resumed, its conversation continues in a copy, and the checkpoints beside it are not used.\n`,
    ),
  );
  for (;;) {
    const answer = await io.input.read("resume it? [y]es / [n]o (start a new session) ", { fresh: true });
    if (answer === undefined) return false;
    const word = answer.trim().toLowerCase();
    if (word === "y" || word === "yes") return true;
    if (word === "n" || word === "no" || word === "") return false;
  }
}
