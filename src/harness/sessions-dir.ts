import { join } from "node:path";
import { legacyProjectDir, projectDir } from "../context/index.js";

/** The folder of a workspace's session files: `~/.mitsu/projects/<project>/sessions`. */
export function sessionsDir(where: { cwd: string; home: string }): string {
  return join(projectDir(where), "sessions");
}

/** Where sessions were written before project folders had unique names: still read by `-c`, never written. */
export function legacySessionsDir(where: { cwd: string; home: string }): string {
  return join(legacyProjectDir(where), "sessions");
}
