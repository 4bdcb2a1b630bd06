import type { TrustQuestion } from "../../harness/index.js";
import type { Style } from "../render/style.js";
import { showControls } from "../render/terminal-text.js";
import type { Question } from "./question-dialog.js";

/**
 * The start-up question as a dialog: may this folder's own files grant permissions? It lists what they would
 * grant (escaped: the lines come from the folder's files). 1 yes / 2 no; Esc is no.
 */
export function trustQuestion(question: TrustQuestion, style: Style): Question<boolean> {
  const grants = question.grants.map((line) => `- ${showControls(line)}`);
  return {
    title: `Do you trust the files in this folder? ${showControls(question.folder)}`,
    body: () => [
      style.dim("Its settings, skills and hooks would grant, run or set:"),
      ...grants.map((line) => style.dim(line)),
      "",
      style.dim("Trust only folders whose files you or people you trust wrote;"),
      style.dim("a yes is remembered in ~/.mitsu/trusted-folders.json."),
    ],
    prompt: "Trust this folder?",
    options: [
      { key: "1", aliases: ["y"], label: "Yes, trust this folder", answer: true },
      { key: "2", aliases: ["n"], label: "No, ignore what its files grant", answer: false },
    ],
    escape: false,
    hint: "Esc to say no",
  };
}
