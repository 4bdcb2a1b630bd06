import type { AgentContext } from "@agentclientprotocol/sdk";
import type { FileAccess } from "../../tools/file-access.js";

/**
 * Read, Write and Edit through the editor (`fs/read_text_file`, `fs/write_text_file`), each side only when the
 * client offered it. The tools call these only with real paths they confined to the workspace and, for writes,
 * that the permission rules allowed; the editor's answer is checked to be text.
 */
export function editorFiles(
  client: AgentContext,
  sessionId: string,
  offered: { readTextFile?: boolean | undefined; writeTextFile?: boolean | undefined },
): FileAccess | undefined {
  if (!offered.readTextFile && !offered.writeTextFile) return undefined;
  const files: FileAccess = {};
  if (offered.readTextFile) {
    files.readText = async (path, signal) => {
      const answer = await client.request(
        "fs/read_text_file",
        { sessionId, path },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      if (typeof answer?.content !== "string") throw new Error("the editor's answer has no text");
      return answer.content;
    };
  }
  if (offered.writeTextFile) {
    files.writeText = async (path, content, signal) => {
      await client.request(
        "fs/write_text_file",
        { sessionId, path, content },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
    };
  }
  return files;
}
