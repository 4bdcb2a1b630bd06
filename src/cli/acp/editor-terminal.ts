import type {
  AgentContext,
  TerminalOutputResponse,
  WaitForTerminalExitResponse,
} from "@agentclientprotocol/sdk";
import type { CommandTerminal } from "../../tools/file-access.js";

/**
 * Bash in the editor's terminal: `terminal/create` runs `bash -c <line>` in the workspace (under `env -u` for
 * each secret variable), `onCreated` shows the
 * terminal under the tool call, `terminal/wait_for_exit` waits; an interrupt or the timeout sends `terminal/kill`;
 * the output is read (`terminal/output`) and the terminal released in every case.
 */
export function editorTerminal(
  client: AgentContext,
  sessionId: string,
  onCreated: (toolUseId: string, terminalId: string) => void,
  /** Variables the command must not see (provider keys): the editor's environment may hold them too. */
  secrets: () => readonly string[],
): CommandTerminal {
  return {
    async run(command, options) {
      // ACP can add variables but not remove them: `env -u` drops each secret before bash starts.
      const unset = secrets().flatMap((name) => ["-u", name]);
      const { terminalId } = await client.request("terminal/create", {
        sessionId,
        command: unset.length > 0 ? "env" : "bash",
        args: unset.length > 0 ? [...unset, "bash", "-c", command] : ["-c", command],
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
