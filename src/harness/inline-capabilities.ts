import type { CanUseTool } from "../loop/permission.js";
import type { Tool, ToolOutput } from "../loop/tool.js";
import type { InlineCapabilities, InlineRun } from "../skills/index.js";
import { readAttachment } from "../tools/read-attachment.js";
import type { Workspace } from "../tools/workspace.js";

let sequence = 0;

/**
 * What `!`command`` and `@file` in a command's or skill's body use: the session's own Bash tool, asked about
 * through the permission checker exactly as the model's calls are (so rules, the sandbox and an active skill's
 * `allowed-tools` apply), and text files of the workspace only (a body may come from a cloned repository).
 */
export function inlineCapabilities(
  tools: readonly Tool<never>[],
  canUseTool: CanUseTool,
  readable: Workspace,
  run: InlineRun,
): InlineCapabilities {
  const bash = tools.find((tool) => tool.name === "Bash");
  return {
    ...(bash
      ? {
          runCommand: async (command: string) => {
            const input = { command, description: "A command in a command's or skill's text" };
            const toolUseId = `inline_${++sequence}`;
            const context = { ...run, agentPath: run.agentPath ?? [], toolUseId };
            const decision = await canUseTool(bash, input, context);
            if (decision.behavior === "deny") {
              // The refusal's text for the model ("STOP what you are doing…") is not for the user's eyes.
              throw new Error(decision.interrupt ? `you refused to run ${command}` : decision.message);
            }
            const runBash = bash.run as (input: Record<string, unknown>, c: object) => Promise<ToolOutput>;
            const output = await runBash(decision.input ?? input, context);
            return outputText(output).replace(/\n*\[Exit code: 0\]$/, "");
          },
        }
      : {}),
    readFile: async (path) => {
      const found = await readAttachment(path, { workspace: readable });
      return found?.kind === "text" ? { path: found.path, text: found.text } : undefined;
    },
  };
}

function outputText(output: ToolOutput): string {
  const content = typeof output === "object" && !Array.isArray(output) ? output.content : output;
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
}
