import type {
  AgentContext,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from "@agentclientprotocol/sdk";
import type { CommandTerminal } from "../../tools/file-access.js";

/**
 * Bash in the editor's terminal: `terminal/create` runs `bash -c <line>` in the workspace, `onCreated` shows the
 * terminal under the tool call, `terminal/wait_for_exit` waits; an interrupt or the timeout sends `terminal/kill`;
 * the output is read (`terminal/output`) and the terminal released in every case.
 */
export function editorTerminal(
  client: AgentContext,
  sessionId: string,
  onCreated: (toolUseId: string, terminalId: string) => void,
): CommandTerminal {
  return {
    async run(command, options) {
      const { terminalId } = await client.request("terminal/create", {
        sessionId,
        command: "bash",
        args: ["-c", command],
        cwd: options.cwd,
        outputByteLimit: options.outputByteLimit,
      });
      const ids = { sessionId, terminalId };
      try {
        onCreated(options.toolUseId, terminalId);
        const exited: Promise<WaitForTerminalExitResponse> = client.request("terminal/wait_for_exit", {
          ...ids,
        });
        const stopped = new Promise<"stopped">((resolve) => {
          if (options.signal.aborted) resolve("stopped");
          options.signal.addEventListener("abort", () => resolve("stopped"), { once: true });
        });
        let exit: WaitForTerminalExitResponse | "stopped" = await Promise.race([exited, stopped]);
        if (exit === "stopped") {
          await client.request("terminal/kill", { ...ids }).catch(() => undefined);
          // The kill ends the command: its exit status follows (not waited for long if the editor never says).
          exit = await Promise.race([
            exited,
            delay(2000).then(() => ({ exitCode: null, signal: "SIGKILL" })),
          ]);
        }
        const output: TerminalOutputResponse = await client.request("terminal/output", { ...ids });
        return {
          output: output.output,
          truncated: output.truncated,
          exitCode: exit.exitCode ?? output.exitStatus?.exitCode ?? null,
          signal: exit.signal ?? output.exitStatus?.signal ?? null,
        };
      } finally {
        await client.request("terminal/release", { ...ids }).catch(() => undefined);
      }
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
