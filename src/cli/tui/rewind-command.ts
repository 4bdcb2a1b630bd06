import type { CodingAgent } from "../../harness/index.js";
import type { Style } from "../render/style.js";
import { stripControls } from "../render/terminal-text.js";
import type { LineInput } from "./line-input.js";

/**
 * `/rewind`: lists the conversation's prompts (numbered), goes back to the one the user picks (the history is cut
 * before it; the session log keeps every line) and, having listed every file it would write or delete (and those
 * it will not touch: outside the workspace, behind a symbolic link), restores them if the user says so. Bash's effects are not tracked, and the user is told so.
 */
export async function rewind(
  agent: CodingAgent,
  io: { input: LineInput; write: (text: string) => void; style: Style },
): Promise<void> {
  const { input, write, style } = io;
  const points = agent.rewindPoints();
  if (points.length === 0) {
    write(style.dim("(no prompt to rewind to yet)\n"));
    return;
  }
  points.forEach((point, i) => {
    write(`  ${i + 1}. ${stripControls(point.firstLine).slice(0, 100)}\n`);
  });
  let chosen: (typeof points)[number] | undefined;
  while (!chosen) {
    const answer = await input.read("rewind to which prompt? (number; Enter for none) ");
    if (answer === undefined || answer.trim() === "") return;
    chosen = points[Number(answer.trim()) - 1];
    if (!chosen || !/^\d+$/.test(answer.trim())) {
      chosen = undefined;
      write(style.red(`no prompt "${stripControls(answer.trim())}" in the list\n`));
    }
  }
  // Every file a restore would write or delete, before the question: the answer is about these paths.
  const planned = agent.rewindPreview(chosen.index);
  if (planned.length === 0) write(style.dim("  (no file was changed by Write or Edit since then)\n"));
  for (const file of planned) {
    const what = file.action === "delete" ? "delete " : "restore";
    const line = `  ${what} ${stripControls(file.path)}`;
    write(file.refused ? style.red(`${line} — not touched: ${stripControls(file.refused)}\n`) : `${line}\n`);
  }
  let restoreFiles: boolean | undefined;
  while (restoreFiles === undefined && planned.some((file) => !file.refused)) {
    const answer = await input.read("restore the files Write and Edit changed since then? [y]es / [n]o ");
    if (answer === undefined) return;
    const word = answer.trim().toLowerCase();
    if (word === "y" || word === "yes") restoreFiles = true;
    else if (word === "n" || word === "no") restoreFiles = false;
  }
  restoreFiles ??= false;
  const result = agent.rewind(chosen.index, { restoreFiles });
  write(
    style.dim(`rewound to before prompt ${points.indexOf(chosen) + 1}: ${stripControls(chosen.firstLine)}\n`),
  );
  for (const path of result.restored) write(`  restored ${stripControls(path)}\n`);
  for (const { path, why } of result.notRestored) {
    write(style.red(`  not restored ${stripControls(path)}: ${stripControls(why)}\n`));
  }
  if (!restoreFiles && planned.length > 0) write(style.dim("  files left as they are\n"));
  write(style.yellow("Bash's effects are not tracked and were not undone.\n"));
}
