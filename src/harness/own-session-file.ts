import { realpathSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";

/**
 * Whether `path` is one of mitsu's own session files: under `~/.mitsu` (where mitsu writes every session) or
 * under `dirs` (a sessions folder an embedder chose). A session file anywhere else — `docs/session.jsonl` in a
 * clone — was written by someone else: its history is resumed only with a notice naming it, in a copy among the
 * user's own sessions, and the checkpoints beside it are never used (they name any path they like).
 */
export function isOwnSessionFile(path: string, home: string, dirs: readonly string[] = []): boolean {
  const file = real(path);
  return [join(home, ".mitsu"), ...dirs].some((dir) => {
    const rest = relative(real(dir), file);
    return rest !== "" && !rest.startsWith("..") && !isAbsolute(rest);
  });
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
