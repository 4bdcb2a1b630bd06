import type { TrustQuestion } from "../harness/index.js";
import type { LineInput } from "./line-input.js";
import type { Style } from "./style.js";
import { showControls } from "./terminal-text.js";

/** The start-up question: may this folder's own files grant permissions? Ended input is a no. */
export async function askTrust(
  question: TrustQuestion,
  io: { input: LineInput; write: (text: string) => void; style: Style },
): Promise<boolean> {
  const { input, write, style } = io;
  // The lines come from the folder's own files: show any control sequence in them, never obey it.
  const folder = showControls(question.folder);
  const grants = question.grants.map(showControls);
  write(
    `${style.yellow("?")} ${style.bold("Do you trust the files in this folder?")} ${folder}\n` +
      `  ${style.dim("Its settings and skills would grant:")}\n${grants.map((line) => `  ${style.dim(`- ${line}`)}\n`).join("")}` +
      `  ${style.dim("Trust only folders whose files you or people you trust wrote; a yes is remembered in ~/.mitsu/trusted-folders.json.")}\n`,
  );
  for (;;) {
    const line = await input.read("Trust this folder? [y]es / [n]o ", { fresh: true });
    if (line === undefined) {
      write("\n");
      return false;
    }
    const answer = line.trim().toLowerCase();
    if (answer === "y" || answer === "yes") return true;
    if (answer === "n" || answer === "no") return false;
    write(style.dim("  Please answer y or n.\n"));
  }
}
