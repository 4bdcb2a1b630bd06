import type { Asker } from "../../harness/index.js";
import type { Style } from "../render/style.js";
import { showControls, stripControls } from "../render/terminal-text.js";
import { createElicitationDialog } from "./elicitation-dialog.js";
import { hooksApprovalQuestion } from "./hooks-approval-question.js";
import { mcpApprovalQuestion } from "./mcp-approval-question.js";
import type { PermissionDialog } from "./permission-question.js";
import type { Screen } from "./screen.js";
import { trustQuestion } from "./trust-question.js";

/**
 * The terminal's answers to the harness's questions, as dialogs on the screen: a tool call, trusting the folder,
 * a project's MCP server, a changed hooks file, a server's form (elicitation). Each answer is echoed in one dim line. A "no" to trust holds for
 * this mitsu: /resume and /clear open the agent again, not the question.
 */
export function terminalAsker(screen: Screen, permissions: PermissionDialog, style: Style): Asker {
  const said = (text: string) => screen.write(style.dim(`${text}\n`));
  let trustDeclined = false;
  return {
    async ask(question) {
      switch (question.kind) {
        case "permission":
          return permissions.ask(question.request);
        case "trust": {
          if (trustDeclined) return false;
          const yes = await screen.ask(trustQuestion(question.question, style));
          trustDeclined = !yes;
          said(`${yes ? "trusted" : "not trusted"}: ${showControls(question.question.folder)}`);
          return yes;
        }
        case "hooks": {
          const yes = await screen.ask(hooksApprovalQuestion(question.file));
          said(`hooks of ${showControls(question.file.file)}: ${yes ? "approved" : "not run"}`);
          return yes;
        }
        case "mcp-server": {
          const answer = await screen.ask(mcpApprovalQuestion(question.entry, style));
          const outcome =
            answer === "approve" ? "started" : answer === "deny" ? "never started here" : "skipped";
          said(`MCP server ${showControls(question.entry.name)}: ${outcome}`);
          return answer;
        }
        case "elicitation": {
          const { request } = question;
          const answer = await screen.show(
            (onChange) => createElicitationDialog(request, style, onChange),
            { action: "cancel" as const },
            request.signal,
          );
          const outcome =
            answer.action === "accept" ? "answered" : answer.action === "decline" ? "declined" : "cancelled";
          said(`input for MCP server ${showControls(request.server)}: ${outcome}`);
          return answer;
        }
        case "plan":
          // Not among this Asker's kinds: a plan comes as the ExitPlanMode permission dialog.
          return undefined;
      }
    },
    notify: (message) => said(`  ${stripControls(message)}`),
  };
}
