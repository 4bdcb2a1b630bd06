import { join } from "node:path";
import { memoryDir } from "../context/index.js";

/** The folder of a workspace's session files: `~/.mitsu/projects/<project>/sessions`. */
export function sessionsDir(where: { cwd: string; home: string }): string {
  return join(memoryDir(where), "..", "sessions");
}
