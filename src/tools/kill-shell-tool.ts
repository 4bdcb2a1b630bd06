import type { Tool } from "../loop/tool.js";
import type { BackgroundShells } from "./background-shells.js";
import { statusNote } from "./bash-output-tool.js";

export interface KillShellInput {
  shell_id: string;
}

/** `KillShell`: stops a command started with `run_in_background`, with every process it started. */
export function createKillShellTool(shells: BackgroundShells): Tool<KillShellInput> {
  return {
    name: "KillShell",
    description: [
      "Stops a command started with Bash run_in_background, and every process it started.",
      "- shell_id: the id the Bash call returned (e.g. bash_1).",
      "- Read its last output with BashOutput first if you need it.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: { shell_id: { type: "string", description: "The id of the background shell to stop" } },
      required: ["shell_id"],
      additionalProperties: false,
    },
    summarize: (input) => `KillShell ${input.shell_id}`,
    permissionFacts: (input) => ({ display: input.shell_id }),
    async run(input) {
      const { info, wasRunning } = await shells.kill(input.shell_id);
      if (wasRunning) return `Stopped ${info.id} (${info.command}).`;
      return `${statusNote(info)} before; anything it left running is stopped now.`;
    },
  };
}
