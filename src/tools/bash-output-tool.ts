import type { Tool } from "../loop/tool.js";
import { ToolError } from "../loop/tool.js";
import type { BackgroundShells, ShellInfo } from "./background-shells.js";

export interface BashOutputInput {
  bash_id: string;
  /** A regular expression: only the new lines that match are returned; the others are consumed all the same. */
  filter?: string;
}

/** `BashOutput`: the new output of a command started with `run_in_background`, and whether it still runs. */
export function createBashOutputTool(shells: BackgroundShells): Tool<BashOutputInput> {
  return {
    name: "BashOutput",
    description: [
      "Reads the new output of a command started with Bash run_in_background: what it printed (stdout and stderr interleaved) since the last read, and whether it is still running or how it ended.",
      "- bash_id: the id the Bash call returned (e.g. bash_1).",
      "- filter: an optional regular expression; only new lines that match are returned. Lines that do not match are consumed and will not be shown again.",
      "- It returns at once with what is there; it does not wait for more output.",
    ].join("\n"),
    inputSchema: {
      type: "object",
      properties: {
        bash_id: { type: "string", description: "The id of the background shell" },
        filter: { type: "string", description: "Only return new lines matching this regular expression" },
      },
      required: ["bash_id"],
      additionalProperties: false,
    },
    readOnly: true,
    summarize: (input) => `BashOutput ${input.bash_id}${input.filter ? ` /${input.filter}/` : ""}`,
    permissionFacts: (input) => ({ display: input.bash_id }),
    async run(input) {
      let filter: RegExp | undefined;
      if (input.filter !== undefined && input.filter !== "") {
        try {
          filter = new RegExp(input.filter);
        } catch (error) {
          throw new ToolError(`filter is not a valid regular expression: ${(error as Error).message}`);
        }
      }
      const read = shells.read(input.bash_id, filter);
      const parts = [read.text === "" ? "(no new output)" : read.text.replace(/\n$/, "")];
      const notes: string[] = [];
      if (read.dropped > 0) {
        notes.push(
          `${read.dropped} characters of earlier output were not kept between reads; the whole output is in ${read.info.logPath}`,
        );
      }
      if (read.filteredOut) notes.push(`${read.filteredOut} lines did not match the filter`);
      notes.push(statusNote(read.info));
      parts.push(notes.map((note) => `[${note}]`).join("\n"));
      return parts.join("\n\n");
    },
  };
}

/** `Still running`, `Exit code: 0`, … as the Bash tool says it. */
export function statusNote(info: ShellInfo): string {
  if (info.status === "running") return `${info.id} is still running (${info.command})`;
  if (info.status === "killed") return `${info.id} was stopped`;
  if (info.exitCode !== undefined && info.exitCode !== null)
    return `${info.id} exited. Exit code: ${info.exitCode}`;
  return `${info.id} ended. Terminated by signal ${info.signal ?? "unknown"}`;
}
