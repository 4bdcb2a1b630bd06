import { rmSync } from "node:fs";

const pending = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const path of pending) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // Exiting: nothing more can be done about a path that will not go.
    }
  }
  pending.clear();
}

/**
 * Removes `path` (a file or a folder, recursively) when the process exits, normally or through
 * `process.exit` (the CLI's second Ctrl-C). A signal that kills the process outright (SIGKILL, an unhandled
 * SIGTERM) runs no hook; temporary names carry the process id so a later run can tell them apart. Returns the
 * function that cancels the removal (call it once the path is gone or has become permanent).
 */
export function removeOnExit(path: string): () => void {
  if (!hooked) {
    hooked = true;
    process.once("exit", removeAll);
  }
  pending.add(path);
  return () => {
    pending.delete(path);
  };
}
