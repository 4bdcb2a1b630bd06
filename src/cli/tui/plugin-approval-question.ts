import type { PluginApproval } from "../../plugins/load-plugins.js";
import { showControls } from "../render/terminal-text.js";
import type { Question } from "./question-dialog.js";

/** The question asked at start-up about an installed plugin whose hooks or MCP servers changed since approval. */
export function pluginApprovalQuestion(approval: PluginApproval): Question<boolean> {
  return {
    title: `The plugin ${showControls(approval.id)} changed what it runs since you approved it`,
    body: () => approval.lines.map(showControls),
    prompt: "Run its hooks and MCP servers as they are now?",
    options: [
      { key: "1", aliases: ["y"], label: "Yes, approve them", answer: true },
      { key: "2", aliases: ["n"], label: "No, not this time", answer: false },
    ],
    escape: false,
    hint: "Esc to say no",
  };
}
